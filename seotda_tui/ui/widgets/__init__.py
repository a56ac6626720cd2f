"""Table widgets: seats, action bar, prompts, and (card.py) the hwatu cards."""
