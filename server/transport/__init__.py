"""Transport: connections and their sessions, the router from message class to handler,
plain HTTP routes, and the fan-out of events to this node's sessions."""
