extension KVOController: CustomDebugStringConvertible {
    /// The controller, its observer, and each observed object with its key paths and options, and where
    /// each was observed (the `observe` call's file and line, and its form), objects separated by a line of
    /// dashes (FBKVOController's format).
    ///
    /// ```
    /// <KVOController<CircleView>: 0x6000…> observer: <CircleView: 0x6000…>
    ///   <Circle: 0x6000…>
    ///     radius [.new, .old]  // App/CircleView.swift:12, block, on the changing thread
    ///   ----
    ///   <Person: 0x6000…>
    ///     address.city [.new]  // App/CircleView.swift:20, block, on a queue
    ///     <computed from firstName, lastName> [.new]  // App/CircleView.swift:24, action, on the changing thread
    /// ```
    public var debugDescription: String {
        let (snapshot, elements) = state.withLock { ($0.table.grouped(), $0.elementObservations) }
        let observerText = observer.map { describe($0) } ?? "nil"
        var lines = ["<KVOController<\(Observer.self)>: \(hexAddress(of: self))> observer: \(observerText)"]
        for (index, entry) in snapshot.enumerated() {
            if index > 0 { lines.append("  ----") }
            let objectType = entry.infos[0].loadObject().map { "\(type(of: $0))" } ?? entry.infos[0].objectTypeName
            lines.append("  <\(objectType): \(hexAddress(of: entry.id))>")
            for info in entry.infos {
                let place = _RegistrationSites.site(info.site).map { "  // \($0.place), \($0.form.description)" } ?? ""
                lines.append("    \(describeKeyPath(of: info)) \(info.options)\(place)")
            }
        }
        for (id, entries) in elements.sorted(by: { $0.key < $1.key }) {
            // (One still being made on another thread has no registration to describe yet.)
            let made = entries.compactMap { entry in entry.token.map { (entry, $0.info) } }
            guard let (_, first) = made.first else { continue }
            lines.append("  ----")
            let objectType = first.loadObject().map { "\(type(of: $0))" } ?? "object"
            lines.append("  <\(objectType): \(hexAddress(of: id))>")
            for (entry, info) in made {
                let place = _RegistrationSites.site(info.site).map { "  // \($0.place), each element" } ?? ""
                lines.append("    \(entry.name ?? "")\(place)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func describeKeyPath(of info: KVOInfo) -> String {
        info.keyPathName
    }
}
