// FBKVOController's usage, in Swift: a controller per observer; block, action and context callbacks;
// several key paths at once; retaining and non-retaining controllers; delivery on a queue, asked for by
// name; no removal code anywhere.
import Foundation
import KVOMediator

/// FBKVOController's sample model.
final class Circle: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var radius = 1.0
    @Observed var color = "red"
    @Observed var borderWidth = 0
    /// Not observable: a plain stored property.
    var label = ""
    /// Observable with no declaration: it reads `radius`.
    var diameter: Double { radius * 2 }

    /// Swift cannot name a computed property at run time: this names it in change records and descriptions
    /// (`@Observed` properties and chains of them are named by the library).
    static func keyPathName(for keyPath: AnyKeyPath) -> String? {
        keyPath == \Circle.diameter ? "diameter" : nil
    }
}

/// Draws a circle; observes it with a block and with an action.
final class CircleView {
    lazy var kvoController = KVOController(observer: self)
    let name: String
    private(set) var log: [String] = []

    init(name: String) {
        self.name = name
    }

    func show(_ circle: Circle) {
        // The view comes back as the block's first parameter, so the block captures nothing.
        kvoController.observe(circle, keyPath: \.radius, options: [.initial, .old, .new]) { view, _, change in
            let old = change.oldValue.map { "\($0)" } ?? "-"
            view.note("radius \(old) -> \(change.newValue!)")
        }
        // The action is an unapplied method: FBKVOController's @selector(colorDidChange:).
        kvoController.observe(circle, keyPath: \.color, action: CircleView.colorDidChange)
        kvoController.observe(circle, keyPath: \.diameter) { view, _, change in
            view.note("\(change.keyPathName) \(change.newValue!)")
        }
    }

    func colorDidChange(_ change: KVOChange<String>) {
        note("color \(change.newValue!)")
    }

    func note(_ line: String) {
        print("  \(name):", line)
        log.append(line)
    }
}

/// Observes several key paths with one block; `change.keyPath` tells which one fired, and `change.keyPathName`
/// names it (FBKVOController's `FBKVONotificationKeyPathKey`).
final class Legend {
    lazy var kvoController = KVOController(observer: self)
    private(set) var fired: [String] = []

    func track(_ circle: Circle) {
        kvoController.observe(circle, keyPaths: [\.radius, \.color, \.borderWidth]) { legend, _, change in
            print("  legend: \(change.keyPathName) is now \(change.newValue!)")
            legend.fired.append(change.keyPathName)
        }
    }
}

/// Observes through the Cocoa-style delegate method, telling its registrations apart by context.
final class Inspector: KeyValueObserving {
    lazy var kvoController = KVOController(observer: self)
    /// Unique addresses, like `static void *GeometryContext = &GeometryContext;` in Objective-C.
    let geometryContext = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    let styleContext = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    private(set) var geometryChanges = 0
    private(set) var styleChanges = 0

    deinit {
        geometryContext.deallocate()
        styleContext.deallocate()
    }

    func inspect(_ circle: Circle) {
        kvoController.observe(
            circle,
            keyPaths: [\.radius, \.borderWidth],
            options: [.old, .new],
            context: geometryContext
        )
        kvoController.observe(circle, keyPaths: [\.color], context: styleContext)
    }

    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        if context == geometryContext {
            geometryChanges += 1
            print("  inspector: geometry \(change.keyPathName): \(change.oldValue!) -> \(change.newValue!)")
        } else if context == styleContext {
            styleChanges += 1
            print("  inspector: style \(change.keyPathName): \(change.newValue!)")
        }
    }
}

/// Stops the program with a message when an expectation fails.
func expect(_ condition: Bool, _ message: String, line: Int = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("FBKVOControllerStyle: FAILED at line \(line): \(message)\n".utf8))
    exit(1)
}

let circle = Circle()
let view = CircleView(name: "view")
let legend = Legend()
let inspector = Inspector()

print("block and action (the .initial record arrives inside observe):")
view.show(circle)
expect(view.log == ["radius - -> 1.0"], "the .initial record, with no old value: \(view.log)")
circle.radius = 2
circle.color = "blue"
expect(
    view.log == ["radius - -> 1.0", "radius 1.0 -> 2.0", "diameter 4.0", "color blue"],
    "block, computed key path and action records: \(view.log)"
)

print("several key paths with one block, and a delegate with contexts:")
legend.track(circle)
inspector.inspect(circle)
circle.borderWidth = 3
circle.color = "green"
circle.radius = 5
expect(legend.fired == ["borderWidth", "color", "radius"], "the legend is told which key path fired: \(legend.fired)")
expect(inspector.geometryChanges == 2 && inspector.styleChanges == 1, "contexts tell the registrations apart")

print("observing the same key path again is ignored (the first registration wins):")
let countBefore = view.kvoController.observationCount
view.kvoController.observe(circle, keyPath: \.radius, options: [.initial]) { view, _, _ in
    view.note("second registration")
}
let countAfter = view.kvoController.observationCount
let secondRecords = view.log.filter { $0 == "second registration" }.count
print("  registrations: \(countBefore) before, \(countAfter) after; records from the second block: \(secondRecords)")
expect(countAfter == countBefore, "no second registration")
expect(secondRecords == 0, "no .initial record from the ignored registration")

print("a key path that reads nothing observable is reported, not registered:")
var reported: [KVOError] = []
view.kvoController.errorHandler = { reported.append($0) }
view.kvoController.observe(circle, keyPath: \.label) { _, _, _ in }
expect(reported.map(\.reason) == [.nothingObservable], "the error handler hears about \\Circle.label")
print("  error:", reported[0].message)

print("unobserve a key path; the other registrations go on:")
view.kvoController.unobserve(circle, keyPath: \.radius)
let linesBefore = view.log.count
circle.radius = 6
expect(view.log == view.log.prefix(linesBefore) + ["diameter 12.0"], "no radius record after unobserve: \(view.log)")

print("the controller ends everything when its observer goes away:")
weak var weakView: CircleView?
weak var weakController: KVOController<CircleView>?
do {
    let shortLived = CircleView(name: "short-lived view")
    shortLived.show(circle)
    weakView = shortLived
    weakController = shortLived.kvoController
}
print("  the short-lived view is gone: \(weakView == nil); its controller too: \(weakController == nil)")
circle.radius = 7  // the short-lived view's registrations have ended: only the others are told
expect(weakView == nil && weakController == nil, "the view and its controller were released")

print("observed objects are held weakly by default, strongly with retainsObserved:")
final class Tracker {
    lazy var retaining = KVOController(observer: self, retainsObserved: true)
    lazy var nonRetaining = KVOController(observer: self)
    private(set) var radii: [Double] = []

    func track(_ circle: Circle, retaining retains: Bool) {
        let controller = retains ? retaining : nonRetaining
        controller.observe(circle, keyPath: \.radius) { tracker, _, change in tracker.radii.append(change.newValue!) }
    }
}
let tracker = Tracker()
weak var weakKept: Circle?
weak var weakDropped: Circle?
do {
    let kept = Circle()
    let dropped = Circle()
    weakKept = kept
    weakDropped = dropped
    tracker.track(kept, retaining: true)
    tracker.track(dropped, retaining: false)
}
let leftOver = tracker.nonRetaining.observationCount
print("  non-retaining: its circle is gone: \(weakDropped == nil); observations left: \(leftOver)")
expect(weakDropped == nil, "the non-retaining controller let its circle go")
expect(leftOver == 0, "and forgot it when it deinitialised")
expect(weakKept != nil, "the retaining controller keeps its circle alive")
weakKept?.radius = 9
print("  retaining: its circle is alive: \(weakKept != nil); radii seen after setting 9: \(tracker.radii)")
expect(tracker.radii == [9], "the kept circle is still observed: \(tracker.radii)")
tracker.retaining.unobserve(weakKept)
print("  after unobserve, the kept circle is gone: \(weakKept == nil)")
expect(weakKept == nil, "unobserving releases the kept circle")

print("delivery: .queue(q) runs the block on q, in order; a form without delivery: runs on the changing thread:")
/// `delivery: .queue` hands the observer to the queue's thread, so the compiler asks for a Sendable
/// observer: here the state both threads touch is behind a lock, and the controller is used only by the
/// thread that made the renderer.
final class Renderer: @unchecked Sendable {
    lazy var kvoController = KVOController(observer: self)
    let queue = DispatchQueue(label: "renderer")
    let rendered = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var drawn: [String] = []

    var frames: [String] { lock.withLock { drawn } }

    func draw(_ frame: String) {
        lock.withLock { drawn.append(frame) }
    }

    func track(_ circle: Circle) {
        kvoController.observe(circle, keyPath: \.radius, delivery: .queue(queue)) { renderer, change in
            dispatchPrecondition(condition: .onQueue(renderer.queue))
            renderer.draw("radius \(change.newValue!)")
            renderer.rendered.signal()
        }
        kvoController.observe(circle, keyPath: \.color) { renderer, _, change in
            // No `delivery:`: synchronous, on the thread that set the color.
            renderer.draw("color \(change.newValue!) on the main thread: \(Thread.isMainThread)")
        }
    }
}
let renderer = Renderer()
let drawn = Circle()
renderer.track(drawn)
drawn.color = "yellow"
for radius in 10...12 {
    drawn.radius = Double(radius)
}
for _ in 10...12 {
    expect(renderer.rendered.wait(timeout: .now() + 5) == .success, "a queued delivery did not arrive")
}
let frames = renderer.queue.sync { renderer.frames }  // (after the queued deliveries)
for frame in frames {
    print("  renderer:", frame)
}
expect(
    frames == ["color yellow on the main thread: true", "radius 10.0", "radius 11.0", "radius 12.0"],
    "the color synchronously, then the radii on the queue, in order: \(frames)"
)

print("the controller's description, as FBKVOController's -description:")
print(view.kvoController.debugDescription)
print("FBKVOControllerStyle: all expectations met")
