// Two comparisons every layer makes: of key paths (identity first) and of types (through subclasses).

/// Key path equality, for optionals too (the same object, the common case, is equal at once).
@inline(__always)
func sameKeyPath(_ lhs: AnyKeyPath?, _ rhs: AnyKeyPath?) -> Bool {
    lhs === rhs || lhs == rhs
}

/// Whether `type` is `base` or a class that inherits from it.
func isType(_ type: Any.Type, orSubclassOf base: Any.Type) -> Bool {
    if type == base { return true }
    guard var current = type as? AnyClass, let baseClass = base as? AnyClass else { return false }
    while let superclass = _getSuperclass(current) {
        if superclass == baseClass { return true }
        current = superclass
    }
    return false
}
