"""The table as data: what a table screen or a replay shows, computed without Textual.

``present`` turns one update into a ``TableModel``; the widgets only draw it.
"""
