"""Dies at once with a Python traceback on stderr."""
raise KeyError("SHOP_API_KEY")
