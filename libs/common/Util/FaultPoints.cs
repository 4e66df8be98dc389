// FaultPoints: a test seam that throws at named points of the server's thread and callback entry points (the cron, the
// network loops, a session's request processing, the accept loop, timers, the AOF writer), to prove that an exception
// there is contained: logged, at most the connection concerned closed, the process serving on (docs/host.md, "Failures at thread and callback entry points").
// Invariants:
//  - Nothing is armed outside tests (Arm is called by tests, or at start from GARNET_TEST_FAULTS by the executable);
//    disarmed, Hit costs one volatile read.
//  - Arm(point, times) makes the next `times` hits of that point throw FaultInjectedException; each hit is counted.
using System.Collections.Concurrent;

namespace Garnet.common.Util;

public static class FaultPoints
{
    private static volatile bool s_armed;
    private static readonly ConcurrentDictionary<string, int> s_left = new();
    private static readonly ConcurrentDictionary<string, int> s_thrown = new();

    public static void Arm(string point, int times = 1)
    {
        s_left[point] = times;
        s_armed = true;
    }

    /// <summary>Disarms every point and clears the counts of Thrown.</summary>
    public static void DisarmAll()
    {
        s_left.Clear();
        s_thrown.Clear();
        s_armed = false;
    }

    /// <summary>Faults thrown at point so far.</summary>
    public static int Thrown(string point) => s_thrown.TryGetValue(point, out int n) ? n : 0;

    /// <summary>Throws FaultInjectedException when point is armed.</summary>
    public static void Hit(string point)
    {
        if (!s_armed) return;
        HitArmed(point);
    }

    private static void HitArmed(string point)
    {
        while (s_left.TryGetValue(point, out int left) && left > 0)
        {
            if (!s_left.TryUpdate(point, left - 1, left)) continue;
            s_thrown.AddOrUpdate(point, 1, (_, n) => n + 1);
            throw new FaultInjectedException(point);
        }
    }

    /// <summary>Logs an exception contained at a thread or callback entry point that has no logger of its own: (where,
    /// exception). Set by the host.</summary>
    public static Action<string, Exception>? Reporter { get; set; }

    private static long s_reported;
    /// <summary>Exceptions reported so far.</summary>
    public static long Reported => Interlocked.Read(ref s_reported);

    /// <summary>Reports a contained exception; never throws.</summary>
    public static void Report(string where, Exception ex)
    {
        Interlocked.Increment(ref s_reported);
        try { Reporter?.Invoke(where, ex); }
        catch { /* a failing logger must not take the thread down either */ }
    }

    /// <summary>Arms the points of a spec "point[:times],point[:times]..." (GARNET_TEST_FAULTS).</summary>
    public static void ArmFromSpec(string? spec)
    {
        if (string.IsNullOrWhiteSpace(spec)) return;
        foreach (var item in spec.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            int colon = item.LastIndexOf(':');
            if (colon > 0 && int.TryParse(item[(colon + 1)..], out int times)) Arm(item[..colon], times);
            else Arm(item);
        }
    }
}

/// <summary>Thrown by an armed fault point.</summary>
public sealed class FaultInjectedException(string point) : Exception($"fault injected at {point}")
{
    public string Point { get; } = point;
}
