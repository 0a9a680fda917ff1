import Synchronization

/// The gate: callbacks enter and leave it; cancelling ends it and waits for them; the callbacks are
/// released once it is ended and idle. (The transitions are ``RegistrationGate``'s.)
extension KVOInfo {

    /// Runs `body` as a callback of this registration unless it has been cancelled.
    @usableFromInline
    @inline(__always)
    final func deliver(_ body: () -> Void) {
        guard tryEnter() else { return }
        markDeliveredChange()
        asCallback(body)
        leave()
    }

    /// `deliver(_:)` for a caller that has entered the gate already (`tryEnter()`), with the observed object
    /// loaded in the gate (nothing once it is gone): leaves it.
    @inline(__always)
    final func deliverWithObjectEntered(_ body: (AnyObject) -> Void) {
        if let object = object.load() {
            markDeliveredChange()
            asCallback { body(object) }
        }
        leave()
    }

    /// Notes that a record other than the `.initial` one is delivered: that it made a record (its name
    /// is then kept when it ends) and, in debug builds, a change (see `KVOObservation.reportIfDiscarded`).
    @inline(__always)
    final func markDeliveredChange() {
        markMadeRecord()
        #if DEBUG
        if !deliveredChange.load(ordering: .relaxed) { deliveredChange.store(true, ordering: .relaxed) }
        #endif
    }

    /// Notes that a record is delivered (see ``KVOInfo/madeRecord``).
    @inline(__always)
    final func markMadeRecord() {
        if !madeRecord.load(ordering: .relaxed) { madeRecord.store(true, ordering: .relaxed) }
    }

    /// Runs `body`, the `.initial` record's callback, unless the registration has been cancelled.
    final func deliverInitialRecord(_ body: () -> Void) {
        guard tryEnter() else { return }
        markMadeRecord()
        asCallback(body)
        leave()
    }

    /// Leaves the gate, entered through its count. Once out, this thread must not touch the registration
    /// (a waiting canceller may let it go), unless it claimed the release a canceller left to the last
    /// thread out, with the canceller's retain: that happens in the step that leaves, while still in.
    @inline(__always)
    final func leave() {
        let left: Void? = updateGate { state in
            guard case .leave(let next) = state.leaving() else { return nil }
            return (next, ())
        }
        if left == nil { leaveLastWithReleaseHeld() }
    }

    /// Leaves the gate, entered through this thread's pass (`passed`, see ``GatePasses``) or its count.
    @inline(__always)
    final func leave(passed: Bool) {
        if passed { leavePass() } else { leave() }
    }

    /// Gives this thread's pass into the gate back. It reads the gate while its word says it is leaving
    /// (whoever would release the registration waits for that word): if a canceller left the release to the
    /// last thread out, it trades the pass for a count and leaves through that, which claims the release if
    /// it is the last.
    @inline(__always)
    final func leavePass() {
        SwiftRuntime.markGatePassLeaving(self)
        finishGivingPassBack()
    }

    /// `leavePass()` after the thread's word is marked as leaving.
    @inline(__always)
    final func finishGivingPassBack() {
        #if DEBUG
        GatePasses.pauseIfChosen(at: .givingPassBack)
        #endif
        if _slowPath(RegistrationGate(rawValue: gate.load(ordering: .relaxed)).holdsRelease) {
            return leavePassWithReleaseHeld()
        }
        SwiftRuntime.giveGatePassBack()
    }

    @inline(never)
    private func leavePassWithReleaseHeld() {
        _ = updateGate { state in (state.tradingPassForCount(), ()) }
        SwiftRuntime.giveGatePassBack()
        leave()
    }

    /// The last thread counted in, leaving a gate whose release a canceller left to the last thread out:
    /// claims it (releases the callbacks and the canceller's retain) in the step that leaves, unless a pass
    /// is held, whose holder then claims it.
    ///
    /// A pass of another thread read here may have been given back a moment ago, so it is read again after a
    /// process-wide barrier: then either it reads as given back (or being given back), or its holder, reading
    /// the gate when it gives it back, sees the release left to it (see ``GatePasses``). A pass being given
    /// back is waited for: its holder may have read the gate before the release was left, or be trading its
    /// pass for a count.
    @inline(never)
    final func leaveLastWithReleaseHeld() {
        // (Acquiring: the passes are read after the state that sent this thread here.)
        var word = gate.load(ordering: .acquiring)
        while true {
            // A pass traded for a count after the passes are read changes the word even once that count
            // has left again, so the step below fails and the passes are read again.
            if let cleared = RegistrationGate(rawValue: word).clearingTradedMark() {
                let (exchanged, original) = gate.compareExchange(
                    expected: word,
                    desired: cleared.rawValue,
                    ordering: .acquiringAndReleasing
                )
                word = exchanged ? cleared.rawValue : original
                continue
            }
            let passesHeld = !settledPassHolders().isEmpty
            #if DEBUG
            GatePasses.pauseIfChosen(at: .leavingLastAfterReadingPasses)
            #endif
            let (next, claims) = RegistrationGate(rawValue: word).leaving(passesHeld: passesHeld)
            let (exchanged, original) = gate.compareExchange(
                expected: word,
                desired: next.rawValue,
                ordering: .acquiringAndReleasing
            )
            if !exchanged {
                word = original
                continue
            }
            guard claims else { return }
            releaseCallbacksOnce()
            Unretained(self).release()
            return
        }
    }

    /// The passes into this gate as the thread that may claim its held release reads them: another thread's
    /// pass again after a process-wide barrier, and none being given back.
    private func settledPassHolders() -> GatePasses.Holders {
        var barrierRun = false
        var backoff = Backoff()
        while true {
            let holders = passHolders()
            if holders.contains(.otherLeaving) {
                backoff.wait()
            } else if holders.contains(.otherThread) && !barrierRun {
                SwiftRuntime.processBarrier()
                barrierRun = true
            } else {
                return holders
            }
        }
    }

    /// The threads that hold a pass into this gate (``GatePasses``): none, with no read of the passes, if no
    /// thread ever took one.
    private func passHolders() -> GatePasses.Holders {
        everPassed.load(ordering: .relaxed) ? SwiftRuntime.gatePassHolders(self) : []
    }

    /// Runs `body` as a callback on this thread: no tracker while user code runs (its reads are not the
    /// evaluation's), and counted in the thread's delivery depth.
    @inline(__always)
    final func asCallback(_ body: () -> Void) {
        ThreadContext.runningCallback(body)
    }

    /// Drops the callbacks (and whatever they capture) once cancelled with none in flight, so that a
    /// block capturing its own token or controller makes no cycle that outlives the registration.
    /// Called by a canceller that does not wait (the caller holds a reference): releases them now if
    /// no thread is in the gate, or leaves that to the last thread out, with a retain that keeps this
    /// registration alive until then. It counts itself in to leave it, so that the release is only ever
    /// claimed by a thread leaving the gate (see `leave()`).
    func releaseCallbacksWhenIdle() {
        // (The passes before the gate: a thread that has given its pass back by this read counted itself
        // in first, if it found a release left to it.)
        if passHolders().isEmpty, RegistrationGate(rawValue: gate.load(ordering: .acquiring)).inFlight == 0 {
            return releaseCallbacksOnce()
        }
        gate.wrappingAdd(RegistrationGate.inFlightUnit, ordering: .acquiringAndReleasing)
        let retained = Unretained(retaining: self)
        let held: Void? = updateGate { state in state.holdingRelease().map { ($0, ()) } }
        if held == nil { retained.release() }  // (another canceller left it already)
        leave()
    }

    func releaseCallbacksOnce() {
        let previous = gate.bitwiseOr(RegistrationGate.releasedBit, ordering: .acquiringAndReleasing).oldValue
        guard RegistrationGate(rawValue: previous).releasing().isFirst else { return }
        object.unpin()
        owner?.unpin()
        let released = box
        box = nil
        var onObjectDeinit: (() -> Void)?
        if let extras = unretainedExtras {
            extras.with { extras in
                onObjectDeinit = extras.onObjectDeinit
                extras.onObjectDeinit = nil
            }
        }
        // Last: releasing the callbacks may run any deinit, which must not find this half done.
        withExtendedLifetime(onObjectDeinit) { released?.release() }
    }

    /// Stops the registration: no callback starts after this returns, except that, called from inside
    /// a callback, it does not wait for callbacks in flight on other threads (that could deadlock).
    ///
    /// A pass into the gate (``GatePasses``) counts as a callback in flight. The first canceller sees every
    /// pass taken before it took the registration off its registrar's table, whose lock the pass was
    /// taken under; a later one, which may run while the first is still unsubscribing, runs the
    /// process-wide barrier first (unless the callbacks are released: then it has nothing to do).
    final func cancel() {
        let previous = RegistrationGate(
            rawValue: gate.bitwiseOr(RegistrationGate.cancelledBit, ordering: .acquiringAndReleasing).oldValue
        )
        if previous.cancelling().1 == .unsubscribe {
            unsubscribeAll(except: nil)
        } else if previous.isReleased {
            // (Released once no callback was in flight: none can start.)
            return
        } else if GatePasses.areOn {
            SwiftRuntime.processBarrier()
        }
        var passes = passHolders()
        // (A pass of this thread: a deinit run by this thread's set or proxy mutation, before its callback:
        // it cannot wait for itself.)
        if (ThreadContext.currentIfPresent?.deliveryDepth ?? 0) == 0, !passes.contains(.thisThread) {
            var backoff = Backoff()
            while !passes.isEmpty || RegistrationGate(rawValue: gate.load(ordering: .acquiring)).inFlight > 0 {
                backoff.wait()
                passes = passHolders()
            }
            releaseCallbacksOnce()
        } else {
            releaseCallbacksWhenIdle()
        }
    }

    /// A registrar this registration depends on deinitialised (it has already dropped us from its table).
    final func endDependencies(onDeinitOf registrarID: ObjectIdentifier) {
        if registrarID == rootRegistrar.id {
            // Counted as in flight while it runs, so that the callbacks it calls are not released under it.
            // (and as a callback of this thread, so that a cancel from inside it does not wait for itself).
            // (The caller, the dying registrar, holds a reference throughout.)
            let previous = gate.wrappingAdd(RegistrationGate.inFlightUnit, ordering: .acquiringAndReleasing).oldValue
            let context = ThreadContext.current
            context.deliveryDepth += 1
            gate.bitwiseOr(RegistrationGate.cancelledBit, ordering: .acquiringAndReleasing)
            unsubscribeAll(except: registrarID)
            // Unless it was already cancelled (and so already out of its owner's table): then the
            // callbacks and the owner's pin may have been released before this entered the gate.
            if !RegistrationGate(rawValue: previous).isCancelled {
                (owner?.load() as? any KVOInfoOwner)?.infoDidEnd(self)
                onObjectDeinit?()
            }
            context.deliveryDepth -= 1
            leave()
            // (Cancelled by a thread that may still be unsubscribing it: a pass taken meanwhile under a
            // registrar that one has not reached yet is seen after the barrier, as by a second `cancel()`.)
            let before = RegistrationGate(rawValue: previous)
            if before.isCancelled, !before.isReleased, GatePasses.areOn { SwiftRuntime.processBarrier() }
            releaseCallbacksWhenIdle()
        } else {
            let lock = StripedLocks.lock(for: self)
            lock.withLock { state.forget(registrar: registrarID) }
        }
    }
}
