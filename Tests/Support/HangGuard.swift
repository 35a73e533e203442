import Testing

extension Trait where Self == TimeLimitTrait {
    /// A hang guard, and no more. Swift Testing starts a test's time limit when it schedules the test, and on two
    /// cores the suite's synchronous tests hold the pool's threads while they wait on a child process, so a test may
    /// wait minutes behind its siblings before its body runs (two TuneServerTests tests "exceeded 120 s" that way under
    /// load, their bodies a second's work). A limit must not count that wait: the real bounds are each call's own
    /// (a socket's 30 s, a child's start 60 s, WebDriver's 60 s, `Oracle.run`'s), and this one only stops a suite
    /// that hangs for good.
    public static var hangGuard: Self { .timeLimit(.minutes(30)) }
}
