import Foundation
import KVOMediator
import Testing

/// Computed properties whose values are small trivial types: a re-evaluation holds them as their bytes,
/// whatever their width, and delivers exactly the records it delivers for any other value.
@Suite struct TrivialComputedValueTests {
    @Test func valuesOfEveryWidthAreDeliveredWithTheirOldValues() {
        let extent = Extent()
        let observer = TestObserver()
        let flat = recordChanges(of: extent, \.isFlat, by: observer)
        let whole = recordChanges(of: extent, \.wholeWidth, by: observer)
        let size = recordChanges(of: extent, \.size, by: observer)
        let corners = recordChanges(of: extent, \.corners, by: observer)
        let wide = recordChanges(of: extent, \.wide, by: observer)
        extent.width = 2.5
        extent.height = 3
        extent.depth = 4
        let sizes = [
            Extent.Size(width: 0, height: 0, depth: 0), Extent.Size(width: 2.5, height: 0, depth: 0),
            Extent.Size(width: 2.5, height: 3, depth: 0), Extent.Size(width: 2.5, height: 3, depth: 4),
        ]
        #expect(
            flat.changes == [
                change(\Extent.isFlat, old: true, new: true), change(\Extent.isFlat, old: true, new: true),
                change(\Extent.isFlat, old: true, new: false),
            ]
        )
        // (It reads the width only; the corners read no depth.)
        #expect(whole.changes == [change(\Extent.wholeWidth, old: Int?.none, new: 2)])
        #expect(size.changes == (1..<4).map { change(\Extent.size, old: sizes[$0 - 1], new: sizes[$0]) })
        let corner = sizes.map { Extent.Corners(left: 0, top: 0, right: Int($0.width), bottom: Int($0.height)) }
        #expect(corners.changes == (1..<3).map { change(\Extent.corners, old: corner[$0 - 1], new: corner[$0]) })
        let wides = sizes.indices.map { Extent.Wide(corners: corner[$0], extra: Int(sizes[$0].depth)) }
        #expect(wide.changes == (1..<4).map { change(\Extent.wide, old: wides[$0 - 1], new: wides[$0]) })
    }

    @Test func distinctSkipsAChangeThatLeavesTheBytesAsTheyWere() {
        let extent = Extent()
        let observer = TestObserver()
        let flat = recordChanges(of: extent, \.isFlat, options: [.old, .new, .distinct], by: observer)
        let whole = recordChanges(of: extent, \.wholeWidth, options: [.old, .new, .distinct], by: observer)
        extent.width = 2.5
        extent.width = 2.75
        extent.height = 1
        extent.depth = 1
        #expect(flat.changes == [change(\Extent.isFlat, old: true, new: false)])
        #expect(whole.changes == [change(\Extent.wholeWidth, old: Int?.none, new: 2)])
    }

    @Test func aTransactionDeliversOneRecordWithItsPriorRecordFirst() {
        let extent = Extent()
        let observer = TestObserver()
        let size = recordChanges(of: extent, \.size, options: [.old, .new, .prior], by: observer)
        let corners = recordChanges(of: extent, \.corners, by: observer)
        withKVOTransaction {
            extent.width = 1
            extent.height = 2
            extent.width = 5
        }
        let before = Extent.Size(width: 0, height: 0, depth: 0)
        let after = Extent.Size(width: 5, height: 2, depth: 0)
        #expect(
            size.changes == [
                change(\Extent.size, old: before, prior: true), change(\Extent.size, old: before, new: after),
            ]
        )
        #expect(
            corners.changes == [
                change(
                    \Extent.corners,
                    old: Extent.Corners(left: 0, top: 0, right: 0, bottom: 0),
                    new: Extent.Corners(left: 0, top: 0, right: 5, bottom: 2)
                )
            ]
        )
    }
}
