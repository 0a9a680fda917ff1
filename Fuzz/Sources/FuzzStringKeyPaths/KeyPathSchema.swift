import FuzzSupport
import KVOMediator

/// What the world's classes declare, written out by hand: the fuzz target's own answer to which
/// string key paths are valid, independent of the library's field metadata.
struct PropertySpec {
    /// What a property holds: a plain value, or a link to an object of a declared class.
    enum Declared {
        case value
        case link(AnyObject.Type)
    }

    let name: String
    let declared: Declared
    /// The property's value, flattened as `obj[kvoKeyPath:]` returns it: nil for a nil optional.
    let read: (AnyObject) -> Any?
    /// Gives the property a new value, different from the current one; a link gets a new object made
    /// by `make` (for links declared as `Site`, a `Site` or a `Campus`).
    let change: (AnyObject, _ make: WorldFactory) -> Void
}

extension PropertySpec {
    /// The properties `type` declares, with those it inherits.
    /// (Made on each call: key paths are not `Sendable`, so the tables cannot be static constants.)
    static func properties(of type: AnyObject.Type) -> [PropertySpec] {
        if type == Company.self { return company }
        if type == Campus.self { return site + campus }
        if type == Site.self { return site }
        if type == Building.self { return building }
        if type == Room.self { return room }
        return []
    }

    /// The property named `name` of `type` (canonical string equivalence, as Swift compares names).
    static func named(_ name: Substring, in type: AnyObject.Type) -> PropertySpec? {
        properties(of: type).first { $0.name == name }
    }

    private static func value<Object: AnyObject, Value>(
        _ name: String,
        _ keyPath: ReferenceWritableKeyPath<Object, Value>,
        next: @escaping (Value) -> Value
    ) -> PropertySpec {
        PropertySpec(
            name: name,
            declared: .value,
            read: { ($0 as! Object)[keyPath: keyPath] },
            change: { object, _ in
                let object = object as! Object
                object[keyPath: keyPath] = next(object[keyPath: keyPath])
            }
        )
    }

    private static func link<Object: AnyObject, Target: AnyObject>(
        _ name: String,
        _ keyPath: ReferenceWritableKeyPath<Object, Target?>,
        make: @escaping (WorldFactory) -> Target
    ) -> PropertySpec {
        PropertySpec(
            name: name,
            declared: .link(Target.self),
            read: { ($0 as! Object)[keyPath: keyPath] },
            change: { object, factory in (object as! Object)[keyPath: keyPath] = make(factory) }
        )
    }

    private static func link<Object: AnyObject, Target: AnyObject>(
        _ name: String,
        _ keyPath: ReferenceWritableKeyPath<Object, Target>,
        make: @escaping (WorldFactory) -> Target
    ) -> PropertySpec {
        PropertySpec(
            name: name,
            declared: .link(Target.self),
            read: { ($0 as! Object)[keyPath: keyPath] },
            change: { object, factory in (object as! Object)[keyPath: keyPath] = make(factory) }
        )
    }

    private static var company: [PropertySpec] {
        [
            value("name", \Company.name) { $0 + "+" },
            value("founded", \Company.founded) { $0 &+ 1 },
            link("headquarters", \Company.headquarters) { $0.site() },
            link("branch", \Company.branch) { $0.site() },
            value("staff", \Company.staff) { $0 + ["bob"] },
            value("codes", \Company.codes) { $0.union([$0.count &+ 100]) },
        ]
    }

    private static var site: [PropertySpec] {
        [
            value("city", \Site.city) { $0 + "+" },
            link("building", \Site.building) { $0.building() },
            link("annex", \Site.annex) { $0.building() },
        ]
    }

    private static var campus: [PropertySpec] {
        [
            value("quad", \Campus.quad) { $0 + "+" },
            link("library", \Campus.library) { $0.building() },
        ]
    }

    private static var building: [PropertySpec] {
        [
            value("floors", \Building.floors) { $0 &+ 1 },
            link("room", \Building.room) { $0.room() },
        ]
    }

    private static var room: [PropertySpec] {
        [
            value("number", \Room.number) { $0 &+ 1 },
            value("label", \Room.label) { $0 + "+" },
            value("seats", \Room.seats) { $0 + [$0.count] },
            value("café", \Room.café) { $0 &+ 1 },
        ]
    }
}

/// Makes the world's objects, and watches each one so that the end of an input can check it is gone.
struct WorldFactory {
    let lifetimes: LifetimeWatch
    /// Whether new sites are campuses.
    let campuses: Bool

    func site() -> Site {
        let site = campuses ? Campus(building: building(), annex: nil) : Site(building: building(), annex: nil)
        lifetimes.watch(site, "a \(type(of: site))")
        return site
    }

    func building() -> Building {
        let building = Building(room: nil)
        lifetimes.watch(building, "a Building")
        return building
    }

    func room() -> Room {
        let room = Room()
        lifetimes.watch(room, "a Room")
        return room
    }
}
