// The framework's public API takes a transport and a clock; their types live in the system layer.
@_exported import TophhieSystem
