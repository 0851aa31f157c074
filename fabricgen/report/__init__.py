"""Reports: structured summaries of a fabric and their text/JSON forms."""
