import Foundation

/// Where a normal user's fermatad keeps its things when no system configuration says otherwise: the state under
/// `$XDG_STATE_HOME/fermata` (else `~/.local/state/fermata`), the socket under `$XDG_RUNTIME_DIR/fermata` (else
/// beside the state), the music in `~/Music`, and no power-off request file. The system defaults (`/var/lib/fermata`,
/// `/run/fermata`, `/srv/music`) are for the installed service, and a normal user can write none of them: `fermatad`
/// run by hand used to say "ready" and stop. `fermata` looks for this socket before the system one.
///
/// Pure functions of the environment; any thread.
public enum UserPlaces {
    public static func stateDirectory(_ environment: [String: String]) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/fermata" }
        return home(environment).map { $0 + "/.local/state/fermata" }
    }

    public static func socketPath(_ environment: [String: String]) -> String? {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/fermata/mpd.sock" }
        return stateDirectory(environment).map { $0 + "/mpd.sock" }
    }

    public static func musicDirectory(_ environment: [String: String]) -> String? {
        home(environment).map { $0 + "/Music" }
    }

    /// The rule `fermatad` and `fermata config show` share: a normal user (not root) whose configuration came from no
    /// file gets the per-user places.
    public static func applyForNormalUser(to config: inout DaemonConfig,
                                          environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard config.file == nil, geteuid() != 0 else { return }
        apply(to: &config, environment: environment)
    }

    /// Puts the per-user places into `config` for the keys still at their defaults (a file or a flag wins).
    public static func apply(to config: inout DaemonConfig, environment: [String: String]) {
        func set(_ key: String, _ value: String?, _ path: WritableKeyPath<DaemonConfig, String>) {
            guard config.origins[key] == nil, let value else { return }
            config[keyPath: path] = value
            config.origins[key] = .perUserDefault
        }
        set("paths.state", stateDirectory(environment), \.stateDirectory)
        set("mpd.socket", socketPath(environment), \.socketPath)
        set("paths.music", musicDirectory(environment), \.musicDirectory)
        set("system.poweroff_request", "", \.poweroffRequest)
    }

    private static func home(_ environment: [String: String]) -> String? {
        guard let home = environment["HOME"], home.hasPrefix("/"), home != "/" else { return nil }
        return home
    }
}
