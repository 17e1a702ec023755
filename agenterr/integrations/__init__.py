"""Hand-offs from agenterr's decisions to the software that acts on them.

One module per ecosystem. ``import agenterr`` never imports any of them; each one imports
its package when it is itself imported, and a missing package is reported by an
:class:`ImportError` naming the extra to install: ``pip install "agenterr[<extra>]"`` from
an index, ``pip install ".[<extra>]"`` in a clone.
Nothing here retries, sleeps, queues or persists: the engine does that.
"""
