"""Features: one module per feature, each with its request handlers.

They read and write through :mod:`server.store`, use the engine in :mod:`shared`, and
hand events to the transport as values (:mod:`server.features.events`,
:class:`~server.features.context.Reply`); they never touch a connection.
"""
