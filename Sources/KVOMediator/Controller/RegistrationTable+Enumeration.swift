/// Walking a controller's whole table: for descriptions, resizing and teardown.
extension RegistrationTable {
    /// The used buckets, each run of buckets from its start: so an object's registrations come in
    /// the order they were added. (A run never spans an empty bucket, and the table is never full.)
    func forEachUsedBucket(_ body: (Bucket) -> Void) {
        forEachUsedBucketOrIndex { bucket in
            if bucket.isIndex {
                bucket.index.forEachInfo { body(Bucket(key: bucket.objectKey, item: $0)) }
            } else {
                body(bucket)
            }
        }
    }

    /// The used buckets as they are (an index as one bucket), each run from its start.
    func forEachUsedBucketOrIndex(_ body: (Bucket) -> Void) {
        guard let empty = buckets.firstIndex(where: { $0.key == 0 }) else { return }
        for offset in 1...buckets.count {
            let bucket = buckets[(empty &+ offset) & mask]
            if bucket.key != 0 { body(bucket) }
        }
    }

    /// Every registration, grouped by object, groups in no particular order, each in the order added.
    func grouped() -> [(id: ObjectIdentifier, infos: [KVOInfo])] {
        var groups: [ObjectIdentifier: [KVOInfo]] = [:]
        forEachUsedBucket { bucket in
            groups[bucket.info.objectID, default: []].append(bucket.info)
        }
        return groups.map { (id: $0.key, infos: $0.value) }
    }
}
