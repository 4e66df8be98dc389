// ScriptMemoryBudget: what a codec or a reply conversion may still take for the running script, so memory it takes
// outside the Lua heap (encoded output, reply bytes) and Lua values it pushes while the cap is lifted (LuaAllocator's
// Unbounded) count against lua-memory-limit as the script's own allocations do.
// Invariants:
//  - Remaining = limit - Lua heap in use - bytes this budget has handed out off the heap; with no limit (0), a fixed
//    ceiling (NoLimitCeiling) still bounds any single codec output or reply.
//  - Running past it is a LuaArgumentException worded as Lua's own ("not enough memory"): the codec's caller turns it
//    into a Lua error, never into a .NET text.
//  - Poll() is called per element by long walks: it also stops them when the script is being killed (SCRIPT KILL,
//    SHUTDOWN, the FUNCTION LOAD timeout) and hands the network loop over as the kill hook does, since the count hook
//    cannot interrupt C# code.
namespace Garnet.server.Scripting;

internal sealed class ScriptMemoryBudget
{
    public const string NotEnoughMemory = "not enough memory";
    /// <summary>The most one output may take when lua-memory-limit is 0 (none): Lua strings and spans stay below it.</summary>
    public const long NoLimitCeiling = int.MaxValue - 4096;

    private readonly LuaAllocator? _alloc;
    private readonly LuaRuntime? _runtime;
    private long _offHeap;
    private int _polls;

    public ScriptMemoryBudget(LuaAllocator? alloc, LuaRuntime? runtime = null)
    {
        _alloc = alloc;
        _runtime = runtime;
    }

    /// <summary>The budget of the runtime whose C# callback runs now (none outside a callback).</summary>
    public static ScriptMemoryBudget ForCallback()
    {
        var rt = LuaRuntime.Current;
        return rt is null ? new ScriptMemoryBudget(null) : new ScriptMemoryBudget(rt.Allocator, rt);
    }

    private long Limit => _alloc?.Limit ?? 0;

    /// <summary>Bytes that may still be taken (off the heap, or pushed into it).</summary>
    public long Remaining
    {
        get
        {
            long limit = Limit;
            if (limit <= 0 || _alloc is null) return NoLimitCeiling - _offHeap;
            return Math.Min(limit - _alloc.Used, NoLimitCeiling) - _offHeap;
        }
    }

    /// <summary>Takes bytes off the heap (a codec's output buffer), or fails as Lua does.</summary>
    public void Take(long bytes)
    {
        if (bytes > Remaining) throw new LuaArgumentException(NotEnoughMemory);
        _offHeap += bytes;
    }

    public void Give(long bytes) => _offHeap = Math.Max(0, _offHeap - bytes);

    /// <summary>Fails when bytes more would not fit.</summary>
    public void Need(long bytes)
    {
        if (bytes > Remaining) throw new LuaArgumentException(NotEnoughMemory);
    }

    /// <summary>Lua 5.4 on 64 bits: an array slot is a 16-byte TValue, a hash node 32 bytes (rounded up).</summary>
    public const long ArraySlotBytes = 16, HashNodeBytes = 32;

    /// <summary>Before inserting entry count + 1 into a table being filled: when count fills a power-of-two part, Lua's
    /// insert allocates twice that while the old part is alive; that must fit before it happens, not be found after.</summary>
    public void TableGrowth(long count, long bytesPerEntry)
    {
        if (count >= 1024 && (count & (count - 1)) == 0) Need(2 * count * bytesPerEntry);
    }

    /// <summary>After pushing Lua values with the cap lifted: fails once the heap is past the limit.</summary>
    public void CheckHeap()
    {
        long limit = Limit;
        if (limit > 0 && _alloc is not null && _alloc.Used + _offHeap > limit) throw new LuaArgumentException(NotEnoughMemory);
        Poll();
    }

    /// <summary>Every 4,096 calls: asks the runtime as the kill hook does (LuaRuntime.Poll: the network loop is handed
    /// over once the run is long, the FUNCTION LOAD deadline is checked) and stops the walk when the script must stop
    /// (its reason as the error).</summary>
    public void Poll()
    {
        if ((++_polls & 4095) != 0 || _runtime is null) return;
        if (_runtime.Poll() is { } reason) throw new LuaArgumentException(reason.StartsWith("ERR ", StringComparison.Ordinal) ? reason[4..] : reason);
    }
}
