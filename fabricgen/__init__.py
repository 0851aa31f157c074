"""fabricgen: declarative GPU-cluster fabrics, checked before they touch a switch."""

__version__ = "0.1.0"
