"""How the clients write a race time, worked out here on its own to check them by."""


def tenths_of_seconds(ms: int) -> str:
    """``ms`` in seconds to the tenth, cut and never rounded up (1,599 ms: "1.5")."""
    return f"{ms // 1000}.{ms % 1000 // 100}"
