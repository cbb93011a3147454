"""Reports: models built from state and event log, rendered to text, HTML, PDF and SVG."""
