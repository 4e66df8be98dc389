// OpsQuota: how the threads of a run share --totalops exactly. Each claims a whole batch at a time; the claim that
// takes the count to zero or below gets only what was left, and is the thread's last.
namespace Resp.benchmark;

internal static class OpsQuota
{
    /// <summary>Claims up to count ops from remaining; returns how many were granted (0: none left, stop).</summary>
    public static int Claim(ref long remaining, int count, out bool last)
    {
        long left = Interlocked.Add(ref remaining, -count);
        last = left <= 0;
        return last ? (int)Math.Max(0, count + left) : count;
    }
}
