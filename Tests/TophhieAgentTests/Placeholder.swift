// Placeholder: replaced by the target's tests.
