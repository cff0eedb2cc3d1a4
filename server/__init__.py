"""The race server: connections, races, matchmaking, the clock, and the Redis store."""
