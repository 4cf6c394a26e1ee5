"""Speed measurements of Fairy Post against peers, printed as one Markdown table (`make bench`)."""
