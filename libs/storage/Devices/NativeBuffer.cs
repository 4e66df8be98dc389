// NativeBuffer: sector-aligned native memory usable as Memory<byte> (for unbuffered device I/O, whose buffers,
// offsets and lengths must be multiples of the sector size).
using System.Buffers;
using System.Runtime.InteropServices;

namespace Garnet.storage.Devices;

internal sealed unsafe class NativeBuffer : MemoryManager<byte>
{
    private byte* _pointer;
    private readonly int _length;

    public NativeBuffer(int length, int alignment)
    {
        _length = length;
        _pointer = (byte*)NativeMemory.AlignedAlloc((nuint)length, (nuint)alignment);
    }

    public override Span<byte> GetSpan() => new(_pointer, _length);
    public override MemoryHandle Pin(int elementIndex = 0) => new(_pointer + elementIndex);
    public override void Unpin() { }

    protected override void Dispose(bool disposing)
    {
        if (_pointer == null) return;
        NativeMemory.AlignedFree(_pointer);
        _pointer = null;
    }
}
