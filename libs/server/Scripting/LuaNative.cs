// LuaNative: the few Lua C API calls KeraLua only offers with a copy (strings in and out as spans), plus the allocator.
// Invariants:
//  - The library is the one KeraLua loads ("lua54"), so both bindings talk to the same lua_State.
//  - Nothing here raises a Lua error: lua_pushlstring can only fail on memory, and LuaAllocator lets allocations made from
//    C# callbacks through (see LuaAllocator.Unbounded), so no longjmp ever crosses a managed frame.
using System.Runtime.InteropServices;

namespace Garnet.server.Scripting;

internal static unsafe partial class LuaNative
{
    private const string Lib = "lua54";

    [LibraryImport(Lib, EntryPoint = "lua_pushlstring")]
    private static partial IntPtr PushLString(IntPtr l, byte* s, nuint len);

    [LibraryImport(Lib, EntryPoint = "lua_tolstring")]
    private static partial byte* ToLString(IntPtr l, int index, out nuint len);

    public static void Push(IntPtr l, ReadOnlySpan<byte> s)
    {
        fixed (byte* p = s) PushLString(l, p == null ? (byte*)1 : p, (nuint)s.Length);
    }

    /// <summary>The bytes of the string (or number, converted in place as Lua does) at index; empty when neither.</summary>
    public static ReadOnlySpan<byte> ToSpan(IntPtr l, int index)
    {
        byte* p = ToLString(l, index, out nuint len);
        return p == null ? default : new ReadOnlySpan<byte>(p, (int)len);
    }
}

/// <summary>
/// Lua's allocator with a cap (lua-memory-limit): past it, an allocation from Lua code fails and the script gets Lua's
/// "not enough memory" error. Allocations made while C# code runs (Unbounded) always succeed, because a failure there would
/// longjmp through managed frames; what they add is bounded by the replies and strings they push.
/// </summary>
internal sealed unsafe class LuaAllocator
{
    private long _used;
    public long Limit;
    public int Unbounded; // > 0 while a C# callback runs
    public long Used => _used;
    public readonly KeraLua.LuaAlloc Delegate;

    public LuaAllocator(long limit)
    {
        Limit = limit;
        Delegate = Alloc;
    }

    private IntPtr Alloc(IntPtr ud, IntPtr ptr, UIntPtr osize, UIntPtr nsize)
    {
        long oldSize = ptr == IntPtr.Zero ? 0 : (long)(ulong)osize;
        long newSize = (long)(ulong)nsize;
        if (newSize == 0)
        {
            if (ptr != IntPtr.Zero) NativeMemory.Free((void*)ptr);
            _used -= oldSize;
            return IntPtr.Zero;
        }
        if (newSize > oldSize && Limit > 0 && Unbounded == 0 && _used + newSize - oldSize > Limit) return IntPtr.Zero;
        var p = (IntPtr)NativeMemory.Realloc((void*)ptr, (nuint)newSize);
        if (p == IntPtr.Zero) return IntPtr.Zero;
        _used += newSize - oldSize;
        return p;
    }
}
