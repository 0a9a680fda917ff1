/// The Cocoa-style delegate callback: one method receives every change, told apart by key path and context.
///
/// ```swift
/// final class Inspector: KeyValueObserving {
///     lazy var kvoController = KVOController(observer: self)
///     func observeValue(forKeyPath keyPath: AnyKeyPath, of object: AnyObject,
///                       change: KVOChange<Any>, context: UnsafeMutableRawPointer?) {
///         if keyPath == \Circle.radius { print("radius:", change.newValue ?? "-") }
///     }
/// }
/// inspector.kvoController.observe(circle, keyPaths: [\.radius, \.color], context: nil)
/// ```
public protocol KeyValueObserving: AnyObject {
    /// Called for each change of a key path observed with a context.
    ///
    /// - Parameters:
    ///   - keyPath: The key path that fired, as passed to `observe`.
    ///   - object: The observed object.
    ///   - change: The change record; a setting's values are the key path's own, boxed as `Any` (a `String?`
    ///     for `\.owner?.name`).
    ///   - context: The context passed to `observe`, unchanged.
    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    )
}
