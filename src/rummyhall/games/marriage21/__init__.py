"""21-card Marriage Rummy."""
