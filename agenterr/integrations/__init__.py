"""Hand-offs from agenterr's decisions to the software that acts on them.

One module per ecosystem. ``import agenterr`` never imports any of them; each one imports
its package when it is itself imported, and a missing package is reported by an
:class:`ImportError` saying how to install it: the package its extra pins, or agenterr
with the extra (``pip install ".[<extra>]"`` in a clone; agenterr is not on a package index).
Nothing here retries, sleeps, queues or persists: the engine does that.

Telemetry: ``opentelemetry`` (``traced``: an ``execute_tool`` span per tool call and a
failure counter) and ``structlog`` (``outcome_fields``: an Outcome as flat event fields,
which needs no package at all, structlog included).
"""
