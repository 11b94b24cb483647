__all__ = ["load"]
