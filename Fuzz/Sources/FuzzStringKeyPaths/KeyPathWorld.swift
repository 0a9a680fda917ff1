import KVOMediator

// The fixed world that string key paths are resolved in: a company with sites, buildings and rooms.
// Chains go five components deep (`headquarters.building.room.number`), optional links are nil or
// not, there are collections, a subclass (`Campus`) with properties of its own, a non-ASCII name, and
// names that must be rejected (`plainNote`, `kvoRegistrar`, the wrappers' `_name` storage).

/// The root of every string key path.
final class Company: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = "Acme"
    @Observed var founded = 1900
    @Observed var headquarters: Site
    @Observed var branch: Site?
    @Observed var staff: [String] = ["ada"]
    @Observed var codes: Set<Int> = [7]
    /// Not observable: a name string key paths must reject.
    var plainNote = "note"

    init(headquarters: Site, branch: Site?) {
        self.headquarters = headquarters
        self.branch = branch
    }
}

/// A link in the middle of chains; `Campus` adds properties only it has.
class Site: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var city = "Paris"
    @Observed var building: Building
    @Observed var annex: Building?

    init(building: Building, annex: Building?) {
        self.building = building
        self.annex = annex
    }
}

/// A subclass: `headquarters.quad` is valid only while the headquarters is a campus.
final class Campus: Site {
    @Observed var quad = "north"
    @Observed var library: Building?
}

final class Building: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var floors = 3
    @Observed var room: Room?

    init(room: Room?) {
        self.room = room
    }
}

/// The end of the longest chains.
final class Room: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var number = 101
    @Observed var label = "lab"
    @Observed var seats: [Int] = []
    /// A non-ASCII name: `"café"` and its decomposed spelling name it (Swift compares strings canonically).
    // swift-format-ignore: IdentifiersMustBeASCII
    @Observed var café = 0
}
