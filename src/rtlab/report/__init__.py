"""Terminal tables, Markdown/CSV/JSON, plots and the HTML report."""
