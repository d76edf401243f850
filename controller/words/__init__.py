"""Words at the edge: every line a person reads or hears, made once from data, per audience."""
