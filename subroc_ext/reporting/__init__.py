"""What people read: condition texts, plots, the HTML report pages (binary, multi-class, comparison) and the notebook view."""
