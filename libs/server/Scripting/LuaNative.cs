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
/// The state starts on KeraLua's delegate (its constructor wants one) and Install then moves it to a static
/// [UnmanagedCallersOnly] function whose counters live in native memory: Lua allocates on nearly every string and table,
/// and that entry costs far less than a marshalled delegate. Both use malloc/realloc/free, so either frees the other's.
/// </summary>
internal sealed unsafe partial class LuaAllocator : IDisposable
{
    private struct Counters { public long Used; public long Limit; public int Unbounded; }
    private Counters* _c;
    public readonly KeraLua.LuaAlloc Delegate;

    public LuaAllocator(long limit)
    {
        _c = (Counters*)NativeMemory.AllocZeroed((nuint)sizeof(Counters));
        _c->Limit = limit;
        Delegate = (ud, ptr, osize, nsize) => Alloc(_c, ptr, (nuint)osize, (nuint)nsize);
    }

    public long Limit { get => Volatile.Read(ref _c->Limit); set => Volatile.Write(ref _c->Limit, value); }
    public long Used => _c->Used;
    /// <summary>&gt; 0 while a C# callback runs.</summary>
    public ref int Unbounded => ref _c->Unbounded;

    [LibraryImport("lua54", EntryPoint = "lua_setallocf")]
    private static partial void SetAllocF(IntPtr l, delegate* unmanaged[Cdecl]<IntPtr, IntPtr, nuint, nuint, IntPtr> f, IntPtr ud);

    /// <summary>Moves state l onto the unmanaged entry (see the class comment).</summary>
    public void Install(IntPtr l) => SetAllocF(l, &Entry, (IntPtr)_c);

    [UnmanagedCallersOnly(CallConvs = [typeof(System.Runtime.CompilerServices.CallConvCdecl)])]
    private static IntPtr Entry(IntPtr ud, IntPtr ptr, nuint osize, nuint nsize) => Alloc((Counters*)ud, ptr, osize, nsize);

    private static IntPtr Alloc(Counters* c, IntPtr ptr, nuint osize, nuint nsize)
    {
        long oldSize = ptr == IntPtr.Zero ? 0 : (long)osize;
        long newSize = (long)nsize;
        if (newSize == 0)
        {
            if (ptr != IntPtr.Zero) NativeMemory.Free((void*)ptr);
            c->Used -= oldSize;
            return IntPtr.Zero;
        }
        long limit = c->Limit;
        if (newSize > oldSize && limit > 0 && c->Unbounded == 0 && c->Used + newSize - oldSize > limit) return IntPtr.Zero;
        IntPtr p;
        // Realloc throws when the system has no memory; an exception must not leave this native entry point (the process
        // would end): Lua gets NULL (its memory error), and the old block is untouched.
        try { p = (IntPtr)NativeMemory.Realloc((void*)ptr, (nuint)newSize); }
        catch (OutOfMemoryException) { return IntPtr.Zero; }
        if (p == IntPtr.Zero) return IntPtr.Zero;
        c->Used += newSize - oldSize;
        return p;
    }

    /// <summary>After lua_close only.</summary>
    public void Dispose()
    {
        if (_c != null) NativeMemory.Free(_c);
        _c = null;
    }
}
