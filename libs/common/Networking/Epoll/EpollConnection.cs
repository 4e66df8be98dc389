// EpollConnection: one client served by an EpollLoop, with the same guarantees as ClientConnection: requests of one
// connection run one at a time and in order; no new bytes are read while replies wait to be sent (back-pressure); pushes
// never land inside a batch's replies; a graceful close lets a running batch finish.
// Invariants: everything except Push, PushDeferred, SendPushes, Close and the read-only properties runs on the loop's
// thread. A batch runs from a receive until its replies are sent; its replies are written at the end of the loop's round
// (EpollLoop.FlushLater), never in the middle. A batch that waits for work (BeforeSendAsync not complete: a disk read,
// a blocking pop, an fsync) is parked: its socket leaves the epoll set, and the work's completion posts the connection
// back to its loop. The connection is torn down (OnClosed) only on the loop's thread and never while parked, since the
// parked work may still write into the session's replies.
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Garnet.common.Resp;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.common.Networking.Epoll;

public sealed class EpollConnection : ISessionChannel
{
    private readonly Socket _socket;
    private readonly int _fd;
    private readonly EpollLoop _loop;
    private readonly RespLimits _limits;
    private readonly ILogger? _logger;
    private readonly ReceiveBuffer _receive;
    private readonly PushQueue _pushes;
    private readonly Action _onPendingDone;
    private IRequestHandler _handler = null!;

    // Loop-thread state.
    internal int Slot = -1;
    internal ulong Token;
    private uint _interest;            // events registered with epoll now (0: not in the set)
    private bool _blockedOutside, _postedWhileBlocked; // its handler released the loop (LoopRelease) and runs on
    private uint _interestBeforeDetach;
    private bool _started, _inBatch, _parked, _pushesOpenWhileParked, _repliesQueued, _continueReady, _resumeAfterPush;
    private ValueTask _pending;
    private ProcessResult _pendingResult, _afterReplies;
    private ReadOnlyMemory<byte> _outgoing;  // bytes being sent now (replies or a chunk of pushes)
    private int _nextSegment;                // of the replies (RespWriter.Segment), the one to send after _outgoing

    /// <summary>Most bytes one Flush sends before it lets the loop's other connections go first (a large reply is sent
    /// in pieces as the socket drains, a round each).</summary>
    private const int FlushBudget = 1 << 20;
    private byte[]? _outgoingPushChunk;

    // Any thread.
    private volatile bool _closed;
    private int _closeRequested;       // 1 graceful, 2 forced
    private int _pendingDone;
    private long _bytesIn, _bytesOut;
    private long _lastActivityMs = Environment.TickCount64;

    internal EpollConnection(Socket socket, EpollLoop loop, RespLimits limits, ILogger? logger)
    {
        _socket = socket;
        _loop = loop;
        _limits = limits;
        _logger = logger;
        _receive = new ReceiveBuffer(limits);
        _pushes = new PushQueue(limits);
        _onPendingDone = OnPendingDone;
        RemoteEndPoint = socket.RemoteEndPoint as IPEndPoint;
        LocalEndPoint = socket.LocalEndPoint as IPEndPoint;
        Handle = (long)socket.Handle;
        _fd = (int)Handle;
    }

    public IPEndPoint? RemoteEndPoint { get; }
    public IPEndPoint? LocalEndPoint { get; }
    public string? UnixSocketPath { get; init; }
    public long Handle { get; }
    public long BytesIn => Interlocked.Read(ref _bytesIn);
    public long BytesOut => Interlocked.Read(ref _bytesOut);
    public int QueryBufferLength => _receive.Input.Count;
    public int QueryBufferCapacity => _receive.Input.Data.Length;
    public bool IsClosed => _closed;
    public long PendingPushBytes => _pushes.Length;
    public long LastActivityMs => Volatile.Read(ref _lastActivityMs);
    public bool CanFinishLater => true;
    public bool ResumesInline => true; // OnPendingDone only posts to the loop

    public bool PeerHasClosed => _closed || SocketPeer.HasClosed(_socket);

    /// <summary>Starts serving the connection on its loop (any thread; the accept path).</summary>
    public void Start(IRequestHandler handler)
    {
        _handler = handler;
        _receive.RentInitial();
        EpollNative.SetNonBlocking(_fd);
        _loop.Post(this);
    }

    // ---- loop thread ----

    /// <summary>Work posted to the connection: its start, a parked batch's work done, a queued continuation, pushes to
    /// send, a close. Idempotent: a connection may be posted more than once for one piece of work.</summary>
    internal void OnPosted()
    {
        if (_closed) return;
        if (_blockedOutside) { _postedWhileBlocked = true; return; }
        try
        {
            if (!_started)
            {
                _started = true;
                _interest = EpollNative.EPOLLIN;
                if (!_loop.Register(this, _fd, _interest)) { _interest = 0; CloseNow(); return; }
            }
            if (_parked && Interlocked.Exchange(ref _pendingDone, 0) == 1) Resume();
            if (_closed) return;
            if (_continueReady && !_parked && _outgoing.IsEmpty)
            {
                _continueReady = false;
                RunBatch(null);
                if (_closed) return;
            }
            int close = Volatile.Read(ref _closeRequested);
            if (close == 2 && !_parked) { CloseNow(); return; }
            if (close == 1 && !_inBatch && !_parked && _outgoing.IsEmpty) { CloseNow(); return; }
            if (_pushes.Length != 0 && PushesMayGo && _outgoing.IsEmpty) _loop.FlushLater(this);
        }
        catch (Exception ex) { Fail(ex); }
    }

    /// <summary>Readiness reported by epoll for this connection's socket.</summary>
    internal void OnEvents(uint events)
    {
        if (_blockedOutside) { _postedWhileBlocked = true; return; }
        try
        {
            if ((events & EpollNative.EPOLLOUT) != 0 && !_outgoing.IsEmpty) Flush();
            if (_closed) return;
            if (_parked)
            {
                // Bytes (or a hang-up) while parked: they wait for the batch to resume; stop level-triggered reports.
                if (_outgoing.IsEmpty) SetInterest(0);
                return;
            }
            if (_inBatch || !_outgoing.IsEmpty) return;
            if ((events & (EpollNative.EPOLLIN | EpollNative.EPOLLERR | EpollNative.EPOLLHUP)) != 0) Receive();
        }
        catch (Exception ex) { Fail(ex); }
    }

    private void Receive()
    {
        _receive.GrowToReceiveSize();
        long hint = _handler.MinBytesHint;
        if (!_receive.MakeRoom(hint, staged: true))
        {
            _logger?.LogWarning("Client {Remote} closed: query buffer of {Bytes} bytes reached client-query-buffer-limit", RemoteEndPoint, _receive.Input.Count);
            CloseNow();
            return;
        }
        var input = _receive.Input;
        int space = _receive.ReceiveSpace; // a large request: at most MaxReceive per round, so other clients get theirs
        int n = EpollNative.Receive(_fd, input.Data.AsSpan(input.End, space));
        if (n == -EpollNative.EAGAIN || n == -EpollNative.EINTR) return;
        if (n <= 0) { CloseNow(); return; }
        _receive.NoteReceive(n, space);
        Interlocked.Add(ref _bytesIn, n);
        Volatile.Write(ref _lastActivityMs, Environment.TickCount64);
        // A large request's buffer still moving (ReceiveBuffer): the request is incomplete; wait for its next bytes.
        if (!_receive.ContinueMove(n, hint)) return;
        _inBatch = true;
        RunBatch(null);
    }

    /// <summary>Runs requests until the batch must wait: for its replies to be written (end of round), for work (parked),
    /// or for more bytes. resumed: the result of a Process whose wait is over (skip running requests first).</summary>
    private void RunBatch(ProcessResult? resumed)
    {
        var output = _handler.Output;
        if (!output.HasBuffer && _loop.TakeReplyBuffer() is { } buffer) output.AdoptBuffer(buffer);
        while (true)
        {
            ProcessResult result;
            if (resumed is { } r)
            {
                result = r;
                resumed = null;
                // The work's wake-up came: the handler finishes it on this thread (or waits again, e.g. a read that went
                // back to the disk); a handler with nothing left returns a completed ValueTask.
                var again = _handler.BeforeSendAsync();
                if (!again.IsCompleted) { Park(again, result); return; }
                again.GetAwaiter().GetResult();
            }
            else
            {
                result = _handler.Process(_receive.Input);
                long hardLimit = _limits.OutputBufferHardLimit;
                if (hardLimit > 0 && output.TotalLength > hardLimit)
                {
                    _logger?.LogWarning("Client {Remote} closed: reply of {Bytes} bytes is over client-output-buffer-limit", RemoteEndPoint, output.TotalLength);
                    CloseNow();
                    return;
                }
                var ready = _handler.BeforeSendAsync();
                if (!ready.IsCompleted) { Park(ready, result); return; }
                ready.GetAwaiter().GetResult();
            }
            if (output.TotalLength > 0)
            {
                _afterReplies = result;
                _repliesQueued = true;
                _loop.FlushLater(this);
                return;
            }
            if (result != ProcessResult.FlushAndContinue) { EndBatch(result); return; }
        }
    }

    private void Park(ValueTask ready, ProcessResult result)
    {
        _pending = ready;
        _pendingResult = result;
        _parked = true;
        // Nothing of this batch is waiting to go out (a blocking pop, SAVE, ... alone in its batch): pushes may go out
        // while it waits, as they cannot overtake a reply.
        _pushesOpenWhileParked = _handler.Output.Length == 0;
        // The socket stays in the epoll set (a client at pipeline 1 sends nothing until it has its reply): it leaves only
        // if it reports something while parked (OnEvents), which saves two epoll_ctl calls per wait.
        if (_pushesOpenWhileParked && _pushes.Length != 0) _loop.FlushLater(this);
        ready.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(_onPendingDone);
    }

    /// <summary>The parked batch's work completed (any thread).</summary>
    private void OnPendingDone()
    {
        Volatile.Write(ref _pendingDone, 1);
        _loop.Post(this);
    }

    private void Resume()
    {
        _parked = false;
        _pushesOpenWhileParked = false;
        var pending = _pending;
        _pending = default;
        try { pending.GetAwaiter().GetResult(); }
        catch (Exception ex) { Fail(ex); return; }
        if (Volatile.Read(ref _closeRequested) == 2) { CloseNow(); return; }
        if (!_outgoing.IsEmpty)
        {
            // Pushes sent while parked are still going out: the batch's replies follow them.
            _resumeAfterPush = true;
            SetInterest(EpollNative.EPOLLOUT);
            return;
        }
        SetInterest(EpollNative.EPOLLIN);
        RunBatch(_pendingResult);
    }

    private void EndBatch(ProcessResult result)
    {
        _inBatch = false;
        var output = _handler.Output;
        if (output.Length == 0 && output.HasBuffer) _loop.GiveReplyBuffer(output.DetachBuffer()); // a batch with no reply
        if (result == ProcessResult.Close || Volatile.Read(ref _closeRequested) != 0) { CloseNow(); return; }
        if (_receive.Input.Count == 0)
        {
            _receive.ShrinkIdle();
            _handler.OnIdle();
        }
        SetInterest(EpollNative.EPOLLIN);
        if (_pushes.Length != 0) _loop.FlushLater(this);
    }

    private bool PushesMayGo => !_inBatch || (_parked && _pushesOpenWhileParked);

    /// <summary>Writes what is queued: the batch's replies, then pushes when they may go; on a full send buffer waits for
    /// EPOLLOUT. Called at the end of a round and when the socket becomes writable.</summary>
    internal void Flush()
    {
        if (_closed) return;
        if (_blockedOutside) { _postedWhileBlocked = true; return; }
        try
        {
            long budget = FlushBudget;
            while (true)
            {
                if (_outgoing.IsEmpty)
                {
                    if (_repliesQueued && !_parked)
                    {
                        _outgoing = _handler.Output.Segment(0);
                        _nextSegment = 1;
                    }
                    else if (PushesMayGo && _pushes.TryTake(out var chunk, out int length))
                    {
                        _outgoingPushChunk = chunk;
                        _outgoing = chunk.AsMemory(0, length);
                    }
                    else return;
                }
                while (!_outgoing.IsEmpty)
                {
                    // Past the budget: the rest when the socket reports writable again (the next round, if it drains).
                    if (budget <= 0) { SetInterest(EpollNative.EPOLLOUT); return; }
                    int n = EpollNative.Send(_fd, _outgoing.Span[..Math.Min(_outgoing.Length, FlushBudget)]);
                    if (n == -EpollNative.EAGAIN || n == -EpollNative.EINTR) { SetInterest(EpollNative.EPOLLOUT); return; }
                    if (n <= 0) { CloseNow(); return; }
                    Interlocked.Add(ref _bytesOut, n);
                    Volatile.Write(ref _lastActivityMs, Environment.TickCount64);
                    _outgoing = _outgoing.Slice(n);
                    budget -= n;
                }
                if (_outgoingPushChunk is { } sent)
                {
                    _outgoingPushChunk = null;
                    LargeBuffers.Return(sent);
                    if (_resumeAfterPush)
                    {
                        _resumeAfterPush = false;
                        SetInterest(EpollNative.EPOLLIN);
                        RunBatch(_pendingResult);
                        return;
                    }
                    if (_parked) { SetInterest(0); continue; }
                    if (!_inBatch) SetInterest(EpollNative.EPOLLIN);
                    continue;
                }
                if (_nextSegment < _handler.Output.SegmentCount)
                {
                    _outgoing = _handler.Output.Segment(_nextSegment++); // never empty (RespWriter)
                    continue;
                }
                // The batch's replies are out: the buffer goes back to the loop's stash (an idle connection holds none).
                _repliesQueued = false;
                _loop.GiveReplyBuffer(_handler.Output.DetachBuffer());
                if (_afterReplies == ProcessResult.FlushAndContinue)
                {
                    // More requests of this batch: next round, after the other connections.
                    SetInterest(EpollNative.EPOLLIN);
                    _continueReady = true;
                    _loop.RunLater(this);
                    return;
                }
                EndBatch(_afterReplies);
                if (_closed) return;
            }
        }
        catch (Exception ex) { Fail(ex); }
    }

    /// <summary>Its handler releases the loop to wait long (LoopRelease): out of the epoll set, and whatever is posted
    /// to it meanwhile waits for Reattach, so the loop's new holder never runs it concurrently.</summary>
    internal void DetachWhileBlocked()
    {
        _blockedOutside = true;
        _interestBeforeDetach = _interest;
        SetInterest(0);
    }

    /// <summary>Its handler has the loop back.</summary>
    internal void Reattach()
    {
        _blockedOutside = false;
        SetInterest(_interestBeforeDetach);
        if (_postedWhileBlocked)
        {
            _postedWhileBlocked = false;
            _loop.RunLater(this);
        }
    }

    private void SetInterest(uint events)
    {
        if (_closed || events == _interest) return;
        int op = events == 0 ? EpollNative.EPOLL_CTL_DEL : _interest == 0 ? EpollNative.EPOLL_CTL_ADD : EpollNative.EPOLL_CTL_MOD;
        int epfd = _loop.EpollFd;
        if (epfd >= 0) EpollNative.Control(epfd, op, _fd, events, Token);
        _interest = events;
    }

    private void Fail(Exception ex)
    {
        if (ex is not (SocketException or ObjectDisposedException))
            _logger?.LogError(ex, "Connection {Remote} failed", RemoteEndPoint);
        if (_parked) return; // torn down when the work it waits for is done
        CloseNow();
    }

    /// <summary>Tears the connection down now (loop thread; never while parked).</summary>
    internal void CloseNow()
    {
        if (_closed) return;
        _closed = true;
        _loop.Unregister(this, _fd);
        try { _socket.Shutdown(SocketShutdown.Both); } catch { }
        _socket.Dispose();
        if (_outgoingPushChunk is { } chunk) { _outgoingPushChunk = null; LargeBuffers.Return(chunk); }
        _outgoing = default;
        if (_handler is null) return;
        _handler.Output.Reset(releaseBuffer: true);
        _receive.Release();
        _pushes.Clear();
        _handler.OnClosed();
    }

    // ---- any thread ----

    public bool Push(ReadOnlySpan<byte> message)
    {
        if (!Queue(message, out bool first)) return false;
        if (first) _loop.Post(this);
        return true;
    }

    public bool PushDeferred(ReadOnlySpan<byte> message, out bool mustSend) => Queue(message, out mustSend);

    public void SendPushes()
    {
        if (_pushes.Length != 0 && !_closed) _loop.Post(this);
    }

    private bool Queue(ReadOnlySpan<byte> message, out bool first)
    {
        first = false;
        if (_closed || Volatile.Read(ref _closeRequested) != 0) return false;
        if (_pushes.Add(message, out first)) return true;
        _logger?.LogWarning("Client {Remote} closed: {Bytes} bytes of pushed messages pending, over client-output-buffer-limit pubsub", RemoteEndPoint, PendingPushBytes);
        Close(force: true);
        return false;
    }

    /// <summary>Only from the session's own request processing (the loop's thread, or a parked batch's work).</summary>
    public void DrainPushes(RespWriter replies) => _pushes.DrainTo(replies);

    /// <summary>Closes from any thread. Graceful: a batch in progress completes (its replies are sent) first. Forced: the
    /// socket is shut down now; the loop tears the connection down (once a parked batch's work is done).</summary>
    public void Close(bool force = false)
    {
        int value = force ? 2 : 1;
        int seen;
        do
        {
            seen = Volatile.Read(ref _closeRequested);
            if (seen >= value) break;
        } while (Interlocked.CompareExchange(ref _closeRequested, value, seen) != seen);
        if (force) { try { _socket.Shutdown(SocketShutdown.Both); } catch { } }
        _loop.Post(this);
    }
}
