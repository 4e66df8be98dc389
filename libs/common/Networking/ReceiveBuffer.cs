// ReceiveBuffer: one connection's received, not yet consumed bytes, sized to what its receives need. Shared by both
// network engines (ClientConnection on .NET's socket engine, EpollConnection on our own loop).
// Invariants: the buffer starts at InitialReceiveSize and doubles only as request bytes actually arrive: when a request
// needs more room, or when receives fill it (a pipelining client: up to PipelineReceiveSize). It never holds more than
// the query buffer limit (+1, so that passing the limit is seen), and shrinks back once the connection is idle and its
// receives have stayed small (32 in a row under a quarter of the size halve it). Buffers above LargeBuffers.PoolLimit
// are not pooled: Release gives them back to LargeBuffers. A rented buffer may be larger than asked for; only Capacity
// bytes of it are ever used.
// Large requests (a bulk argument of many MB): the buffer grows as the bytes arrive, to at most 4x what has arrived,
// and its last size is exactly what the request needs (so a SET can keep the buffer as its value,
// RespServerSession.TakeLargeArgument). A growth that would copy more than MovePiece bytes is staged (MakeRoom's
// staged: true, the epoll engine): the new buffer takes the next receives at once while the unread bytes move into its
// front in pieces (ContinueMove, each at least MovePiece and a quarter more than the receive brought: on the ladder of
// sizes the bytes to move are a third of the free space, so the move ends well before the buffer fills), so no single
// round of the loop copies hundreds of MB. While Moving, the front of Data (the bytes still being moved) is not yet
// valid: the request is incomplete then (a growth happens only while it is), and the move is finished before the input
// is processed. The arrays of a staged growth are exact-size, not pinned (the pinned-object heap is never compacted and
// kept the memory of dropped buffers: MemoryBoundTests.LargeRequestsCutOffOrCompletedLeaveNoMemoryBehind) and not
// cached: the replaced one is dropped (MemoryReclaimer), so a large request holds at most its size plus a quarter.
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

    /// <summary>Most bytes a staged growth copies in one step (ContinueMove), and the least a growth stages.</summary>
    public const int MovePiece = 256 << 10;
    /// <summary>Most bytes one receive asks for: a large request arrives in pieces of at most this, one per loop round
    /// (a round then costs the big client about a millisecond: the receive's and the move's page faults and copies).</summary>
    public const int MaxReceive = 256 << 10;

    private int _receiveSize = InitialReceiveSize; // what receives have lately needed
    private int _smallReceives;

    // A staged growth: _moveFrom[_moveFromStart + _moved .. + _moveCount) still to copy to Data[_moved..).
    private byte[]? _moveFrom;
    private int _moveFromStart, _moveCount, _moved;

    /// <summary>A staged growth is under way: the unread bytes are not all in Data yet (do not process the input).</summary>
    public bool Moving => _moveFrom is not null;

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
    public bool MakeRoom(long minBytesHint, bool staged = false)
    {
        var input = Input;
        if (input.End < Capacity) return true;
        if (Moving) FinishMove();
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
        if (minBytesHint > size && minBytesHint <= MaxBuffer && size > LargeBuffers.PoolLimit)
        {
            // A large request: sizes quartering down from what it needs (at most 4x what arrived), so the last growth lands
            // on it exactly and the buffer that growth leaves is a quarter of it: 1.25x the request at the peak.
            long step = minBytesHint, most = Math.Min((long)Capacity * 4, MaxBuffer);
            while (step > most) step = (step + 3) / 4;
            if (step > count) size = step;
        }
        if (staged && count > MovePiece) StartMove((int)size);
        else MoveUnreadTo((int)size);
        return true;
    }

    /// <summary>Receives as many bytes at most (a large request comes in pieces: see MaxReceive).</summary>
    public int ReceiveSpace => Math.Min(Space, MaxReceive);

    /// <summary>After a receive of received bytes during a staged growth: moves the next piece. True when the move is done
    /// (the input may be processed). It is finished at once when the pending request has all its bytes (count reached
    /// minBytesHint, or the hint is unknown) or the buffer is full.</summary>
    public bool ContinueMove(int received, long minBytesHint)
    {
        if (!Moving) return true;
        if (minBytesHint <= 0 || Input.Count >= minBytesHint || Space == 0) { FinishMove(); return true; }
        int piece = (int)Math.Min(_moveCount - _moved, Math.Max(MovePiece, received + received / 4L));
        _moveFrom.AsSpan(_moveFromStart + _moved, piece).CopyTo(Input.Data.AsSpan(_moved));
        _moved += piece;
        if (_moved < _moveCount) return false;
        EndMove();
        return true;
    }

    /// <summary>Completes a staged growth now.</summary>
    public void FinishMove()
    {
        if (!Moving) return;
        _moveFrom.AsSpan(_moveFromStart + _moved, _moveCount - _moved).CopyTo(Input.Data.AsSpan(_moved));
        _moved = _moveCount;
        EndMove();
    }

    private void StartMove(int size)
    {
        var input = Input;
        _moveFrom = input.Data;
        _moveFromStart = input.Start;
        _moveCount = input.Count;
        _moved = 0;
        input.Data = GC.AllocateUninitializedArray<byte>(size);
        input.Start = 0;
        input.End = _moveCount;
    }

    private void EndMove()
    {
        var old = _moveFrom!;
        _moveFrom = null;
        _moveCount = _moved = 0;
        Drop(old);
    }

    /// <summary>An array replaced by a staged growth: a large one is dropped (not cached), a small one pooled.</summary>
    private static void Drop(byte[] array)
    {
        if (array.Length > LargeBuffers.PoolLimit) MemoryReclaimer.Released(array.Length);
        else LargeBuffers.Return(array);
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
        if (Moving) FinishMove();
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
        if (_moveFrom is { } from) { _moveFrom = null; Drop(from); }
        LargeBuffers.Return(Input.Data);
        Input.Data = Array.Empty<byte>();
        Input.Start = Input.End = 0;
    }

    /// <summary>Moves the unread bytes to the front of a new buffer of at least size bytes.</summary>
    private void MoveUnreadTo(int size)
    {
        var input = Input;
        int count = input.Count;
        // A large size is allocated exactly (a cached array could be far larger than the request needs).
        var nb = size > LargeBuffers.PoolLimit ? GC.AllocateUninitializedArray<byte>(size) : LargeBuffers.Rent(size);
        input.Data.AsSpan(input.Start, count).CopyTo(nb);
        LargeBuffers.Return(input.Data);
        input.Data = nb;
        input.Start = 0;
        input.End = count;
    }
}
