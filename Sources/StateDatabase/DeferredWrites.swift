/// Marks the task of one client's command list: the state store may hold that task's queue and state writes back
/// and commit them once, when the list ends (`StateStore.flushDeferred`), instead of one fsync per edit. Only the
/// list's own task is marked, so another client's edit is never held back — it commits at once, carrying anything
/// pending with it (earlier, never later).
///
/// A task-local flag; set only by `FermataBackend.commandList`.
public enum DeferredWrites {
    @TaskLocal public static var active = false
}
