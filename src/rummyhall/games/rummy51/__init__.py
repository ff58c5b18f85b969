"""Rummy 51: open groups on the table, an opening of 51, and the first to shed every card wins."""
