// Poll: waits for a condition that another thread or the server makes true, with a bound, instead of a fixed sleep that
// a loaded machine can outrun. Invariant: returns as soon as the condition holds; the caller asserts what it needs.
namespace Garnet.test;

internal static class Poll
{
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
}
