// CodecOutput: where cjson.encode, cmsgpack.pack and struct.pack write their result, and how it becomes a Lua string.
// Invariants:
//  - A write runs at most three times (Produce): into a small pooled buffer; if that overflows, once counting only
//    (nothing is stored, and counting stops with "not enough memory" as soon as the output could not fit the script's
//    budget twice: the buffer and the Lua string); then once into one native buffer of exactly the counted size. No
//    growth by doubling, no copy but the final one into Lua, and the buffer is freed as soon as the string exists.
//  - The write must be repeatable: it only reads Lua values and leaves the stack as it found it (Produce resets the
//    top before each rerun).
using System.Buffers;
using System.Runtime.InteropServices;
using KeraLua;

namespace Garnet.server.Scripting;

internal sealed unsafe class CodecOutput : IDisposable
{
    private const int SmallSize = 32 * 1024;

    private enum Mode { Small, Counting, Exact }

    private readonly ScriptMemoryBudget _budget;
    private Mode _mode;
    private byte[]? _small;
    private byte* _native;
    private long _cap;
    private long _taken;

    public long Length { get; private set; }
    public ScriptMemoryBudget Budget => _budget;

    private CodecOutput(ScriptMemoryBudget budget) => _budget = budget;

    private sealed class SmallBufferFull : Exception;

    /// <summary>Runs write (at most three times, see the header) and pushes its bytes as one Lua string.</summary>
    public static void Produce(Lua l, ScriptMemoryBudget budget, Action<CodecOutput> write)
    {
        int top = l.GetTop();
        using var o = new CodecOutput(budget);
        o._small = ArrayPool<byte>.Shared.Rent(SmallSize);
        o._cap = o._small.Length;
        try
        {
            write(o);
            l.SetTop(top);
            budget.Need(o.Length);
            LuaNative.Push(l.Handle, o._small.AsSpan(0, (int)o.Length));
            return;
        }
        catch (SmallBufferFull) { l.SetTop(top); }
        o.Release();
        o._mode = Mode.Counting;
        o.Length = 0;
        o._cap = Math.Max(0, budget.Remaining / 2);
        write(o);
        l.SetTop(top);
        long size = o.Length;
        budget.Take(size);
        o._taken = size;
        budget.Need(size);
        o._native = (byte*)NativeMemory.Alloc((nuint)Math.Max(size, 1));
        o._mode = Mode.Exact;
        o._cap = size;
        o.Length = 0;
        write(o);
        l.SetTop(top);
        if (o.Length != size) throw new InvalidOperationException("codec output changed between passes");
        LuaNative.Push(l.Handle, new ReadOnlySpan<byte>(o._native, (int)size));
    }

    private void Full(long more)
    {
        if (_mode == Mode.Small) throw new SmallBufferFull();
        if (_mode == Mode.Counting) throw new LuaArgumentException(ScriptMemoryBudget.NotEnoughMemory);
        throw new InvalidOperationException("codec output larger than counted");
    }

    public void Byte(byte b)
    {
        if (Length >= _cap) Full(1);
        if (_mode == Mode.Small) _small![Length] = b;
        else if (_mode == Mode.Exact) _native[Length] = b;
        Length++;
    }

    public void Bytes(ReadOnlySpan<byte> s)
    {
        if (Length + s.Length > _cap) Full(s.Length);
        if (_mode == Mode.Small) s.CopyTo(_small.AsSpan((int)Length));
        else if (_mode == Mode.Exact) s.CopyTo(new Span<byte>(_native + Length, s.Length));
        Length += s.Length;
    }

    /// <summary>n copies of b (padding).</summary>
    public void Fill(byte b, long n)
    {
        if (Length + n > _cap) Full(n);
        if (_mode == Mode.Small) _small.AsSpan((int)Length, (int)n).Fill(b);
        else if (_mode == Mode.Exact) new Span<byte>(_native + Length, (int)n).Fill(b);
        Length += n;
    }

    private void Release()
    {
        if (_small is not null) ArrayPool<byte>.Shared.Return(_small);
        _small = null;
        if (_native != null) NativeMemory.Free(_native);
        _native = null;
        if (_taken > 0) _budget.Give(_taken);
        _taken = 0;
    }

    public void Dispose() => Release();
}
