"""The race server: transport (connections, router, fan-out) → features → the Redis store."""
