"""``bxb serve``: the tournament server (an ASGI app) and its pages. It holds no rules."""
