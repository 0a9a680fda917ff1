/// The `@ObservedWeak` properties holding this registrar's object, each by its ``WeakLink``: listed
/// while the property holds the object, handed back when the object deinitialises (see `deinit`).
extension KVORegistrar {
    /// Lists the link of a weak property that now holds this object.
    func addWeakLink(_ link: WeakLink) {
        withWeakLinks { $0.append(link) }
    }

    /// Unlists a link whose property let this object go. (Order does not matter: found from the end,
    /// where the newest links are, and removed by a swap, not a shift.)
    func removeWeakLink(_ link: WeakLink) {
        let removed: WeakLink? = withWeakLinks { links in
            guard let index = links.lastIndex(where: { $0 === link }) else { return nil }
            links.swapAt(index, links.count - 1)
            return links.removeLast()
        }
        _ = removed  // released here, outside the lock
    }
}
