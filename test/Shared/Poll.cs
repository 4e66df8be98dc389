// Poll: waits for a condition that another thread, process or the server makes true, with a bound, instead of a fixed
// sleep that a loaded machine can outrun (and that a quiet one waits out for nothing).
// Invariants: returns as soon as the condition holds (checked every 5 ms); Until leaves the assertion to the caller,
// True fails the test with what it waited for when the bound passes.
namespace Garnet.test.shared;

internal static class Poll
{
    /// <summary>The bound of True when none is given: generous, since it only matters when the condition never holds.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(30);

    /// <summary>Checks condition every 5 ms until it holds (true) or timeout has passed (false).</summary>
    public static bool Until(Func<bool> condition, TimeSpan timeout)
    {
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (sw.Elapsed >= timeout) return false;
            Thread.Sleep(5);
        }
        return true;
    }

    /// <summary>Waits until condition holds; fails the test, naming what, when it has not within timeout (default 30 s).</summary>
    public static void True(Func<bool> condition, string what, TimeSpan? timeout = null)
    {
        var bound = timeout ?? DefaultTimeout;
        if (!Until(condition, bound)) Assert.Fail($"timed out after {bound.TotalSeconds:0.#} s waiting for {what}");
    }
}
