"""Hand-offs from agenterr's decisions to the software that acts on them.

One module per ecosystem; each imports its package lazily (on first use of a name that
needs it), so ``import agenterr.integrations.<name>`` works without the package and a
missing package is reported by an :class:`ImportError` naming the extra to install.
Nothing here retries, sleeps, queues or persists: the engine does that.
"""
