extension KVOController: CustomDebugStringConvertible {
    /// The controller, its observer, and each observed object with its key paths and options,
    /// objects separated by a line of dashes (FBKVOController's format).
    ///
    /// ```
    /// <KVOController<CircleView>: 0x6000…> observer: <CircleView: 0x6000…>
    ///   <Circle: 0x6000…>
    ///     radius [.new, .old]
    ///   ----
    ///   <Person: 0x6000…>
    ///     address.city [.new]
    ///     <computed from firstName, lastName> [.new]
    /// ```
    public var debugDescription: String {
        let snapshot = state.withLock { $0.table.grouped() }
        let observerText = observer.map { describe($0) } ?? "nil"
        var lines = ["<KVOController<\(Observer.self)>: \(hexAddress(of: self))> observer: \(observerText)"]
        for (index, entry) in snapshot.enumerated() {
            if index > 0 { lines.append("  ----") }
            let objectType = entry.infos[0].loadObject().map { "\(type(of: $0))" } ?? entry.infos[0].objectTypeName
            lines.append("  <\(objectType): 0x\(String(UInt(bitPattern: entry.id), radix: 16))>")
            for info in entry.infos {
                lines.append("    \(describeKeyPath(of: info)) \(info.options)")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func describeKeyPath(of info: KVOInfo) -> String {
        info.keyPathName
    }
}
