// ReceiveBuffer: one connection's received, not yet consumed bytes, sized to what its receives need. Shared by both
// network engines (ClientConnection on .NET's socket engine, EpollConnection on our own loop).
// Invariants: the buffer starts at InitialReceiveSize and doubles only as request bytes actually arrive: when a request
// needs more room, or when receives fill it (a pipelining client: up to PipelineReceiveSize). It never holds more than
// the query buffer limit (+1, so that passing the limit is seen), and shrinks back once the connection is idle and its
// receives have stayed small (32 in a row under a quarter of the size halve it). Buffers above LargeBuffers.PoolLimit
// are not pooled: Release gives them back to LargeBuffers. A rented buffer may be larger than asked for; only Capacity
// bytes of it are ever used.
using Garnet.common.Resp;
using Garnet.common.Util;

namespace Garnet.common.Networking;

public sealed class ReceiveBuffer(RespLimits limits)
{
    public const int InitialReceiveSize = 4096;
    /// <summary>Largest receive buffer a pipelining client's full receives grow it to (larger requests grow it further).</summary>
    public const int PipelineReceiveSize = 128 * 1024;
    /// <summary>Receives in a row that bring less than a quarter of the receive size before it halves.</summary>
    private const int SmallReceivesBeforeShrink = 32;

    private int _receiveSize = InitialReceiveSize; // what receives have lately needed
    private int _smallReceives;

    /// <summary>The bytes themselves: Data[Start..End) is unconsumed.</summary>
    public InputBuffer Input { get; } = new();

    /// <summary>Usable bytes of the buffer: a rented buffer may be larger than the limits allow.</summary>
    public int Capacity => (int)Math.Min(Input.Data.Length, MaxBuffer);

    /// <summary>Free bytes after End that a receive may fill.</summary>
    public int Space => Capacity - Input.End;

    /// <summary>The most the buffer may hold: the query buffer limit + 1, within the absolute bound.</summary>
    private long MaxBuffer => Math.Min(limits.QueryBufferLimit + 1, RespLimits.AbsoluteMaxBuffer);

    public void RentInitial() => Input.Data = LargeBuffers.Rent(InitialReceiveSize);

    /// <summary>Makes the buffer at least the receive size (within the query buffer limit), keeping unread bytes.</summary>
    public void GrowToReceiveSize()
    {
        int size = (int)Math.Min(_receiveSize, MaxBuffer);
        if (Input.Data.Length < size) MoveUnreadTo(size);
    }

    /// <summary>Makes free space at the end of the buffer, given how many bytes (from Start) the pending request needs
    /// (0 if unknown). False when the query buffer limit is reached: the connection must close.</summary>
    public bool MakeRoom(long minBytesHint)
    {
        var input = Input;
        if (input.End < Capacity) return true;
        int count = input.Count;
        if (count >= limits.QueryBufferLimit) return false;
        if (input.Start > 0 && count < Capacity / 2 && minBytesHint <= Capacity)
        {
            input.Data.AsSpan(input.Start, count).CopyTo(input.Data);
            input.Start = 0;
            input.End = count;
            return true;
        }
        // Double, but never beyond what the pending request needs (when known) or the limits allow.
        long size = (long)Capacity * 2;
        if (minBytesHint > count && minBytesHint < size) size = Math.Max(minBytesHint, count + 1);
        size = Math.Min(size, MaxBuffer);
        if (size <= count) return false;
        MoveUnreadTo((int)size);
        return true;
    }

    /// <summary>Records a receive of received bytes into space free bytes: one that filled its space doubles the receive
    /// size (more bytes were waiting); a long run of small ones halves it.</summary>
    public void NoteReceive(int received, int space)
    {
        Input.End += received;
        if (received == space && _receiveSize < PipelineReceiveSize)
        {
            _receiveSize *= 2;
            _smallReceives = 0;
        }
        else if (received < _receiveSize / 4 && _receiveSize > InitialReceiveSize)
        {
            if (++_smallReceives < SmallReceivesBeforeShrink) return;
            _receiveSize /= 2;
            _smallReceives = 0;
        }
        else _smallReceives = 0;
    }

    /// <summary>With every byte consumed: empties the buffer, and swaps a big one for one of the receive size.</summary>
    public void ShrinkIdle()
    {
        Input.Start = Input.End = 0;
        if (Input.Data.Length > Math.Max(_receiveSize, InitialReceiveSize * 4))
        {
            LargeBuffers.Return(Input.Data);
            Input.Data = LargeBuffers.Rent(_receiveSize);
        }
    }

    /// <summary>Gives the buffer back (the connection has closed).</summary>
    public void Release()
    {
        LargeBuffers.Return(Input.Data);
        Input.Data = Array.Empty<byte>();
        Input.Start = Input.End = 0;
    }

    /// <summary>Moves the unread bytes to the front of a new buffer of at least size bytes.</summary>
    private void MoveUnreadTo(int size)
    {
        var input = Input;
        int count = input.Count;
        var nb = LargeBuffers.Rent(size);
        input.Data.AsSpan(input.Start, count).CopyTo(nb);
        LargeBuffers.Return(input.Data);
        input.Data = nb;
        input.Start = 0;
        input.End = count;
    }
}
