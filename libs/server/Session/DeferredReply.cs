// DeferredReply: a command whose reply comes later. Either its work runs off the connection's thread (SAVE, COMPACT,
// FLUSHALL SYNC, SHUTDOWN, a blocked BLPOP: WhenDone with a Task), or its store reads went to disk (GET of a key on
// disk: WhenReadsDone, without a Task or a closure). The connection sends what is written, awaits it in
// BeforeSendAsync, has the session write the reply, and only then runs the client's next request.
// Invariants:
//  - At most one deferred command per connection; nothing of this client runs before its reply is written.
//  - The reply is written on the connection's own thread (or, without a connection loop, waited for right here).
namespace Garnet.server.Session;

internal sealed class DeferredReply
{
    private readonly RespServerSession _session;
    private Action<CommandContext, Exception?>? _afterReads;
    private DeferredReads? _readsWait;
    private Task? _work;
    private Action<CommandContext, Task>? _afterWork;
    private byte[] _key = [];
    private int _keyLength;

    public DeferredReply(RespServerSession session) => _session = session;

    /// <summary>A deferred command's reply is still to come.</summary>
    public bool Pending => _work is not null || _afterReads is not null;

    public bool WaitsForWork => _work is not null;

    public bool WaitsForReads => _afterReads is not null;

    /// <summary>reply(context, work) writes the reply once work has completed (faulted or not).</summary>
    public void WhenDone(Task work, Action<CommandContext, Task> reply)
    {
        _work = work;
        _afterWork = reply;
    }

    /// <summary>reply(context, error) writes the reply once the command's deferred store reads have completed (error: what
    /// the read threw), without allocating.</summary>
    public void WhenReadsDone(Action<CommandContext, Exception?> reply) => _afterReads = reply;

    /// <summary>Keeps key for the reply of the command that finishes later (Key), in a buffer reused for the next.</summary>
    public void KeepKey(ReadOnlySpan<byte> key)
    {
        if (_key.Length < key.Length || _key.Length > 4096) _key = new byte[Math.Max(key.Length, 64)];
        key.CopyTo(_key);
        _keyLength = key.Length;
    }

    public ReadOnlySpan<byte> Key => _key.AsSpan(0, _keyLength);

    /// <summary>For BeforeSendAsync: awaits what is pending, writes its reply, then waits for durability.</summary>
    public ValueTask FinishAsync() => _afterReads is not null ? FinishReadsAsync() : FinishWorkAsync();

    private ValueTask FinishReadsAsync()
    {
        var wait = _readsWait ??= new DeferredReads();
        var woken = wait.Arm(_session.Connection.ResumesInline);
        Exception? error = null;
        try { if (!_session.Storage.TryFinishDeferred(wait.Wake)) return woken; }
        catch (Exception ex) { error = ex; }
        WriteReadsReply(error);
        return _session.Aof.WaitDurableAsync();
    }

    /// <summary>At the start of a batch, a deferred read still open whose wake-up came before the connection looked at it:
    /// finishes it if its reads are done; false when the connection must still wait for it.</summary>
    public bool TryFinishReadsNow()
    {
        Exception? error = null;
        try { if (!_session.Storage.TryFinishDeferredNow()) return false; }
        catch (Exception ex) { error = ex; }
        WriteReadsReply(error);
        return true;
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FinishWorkAsync()
    {
        var work = TakeWork(out var reply);
        try { await work.ConfigureAwait(false); }
        catch { /* the reply looks at the task */ }
        _session.WriteLaterReply(reply, work);
        await _session.Aof.WaitDurableAsync().ConfigureAwait(false);
    }

    /// <summary>For callers without a connection loop (AOF replay, EXEC, scripts): waits for what is pending right here.</summary>
    public void FinishBlocking()
    {
        FinishWorkBlocking();
        if (_afterReads is not null)
        {
            Exception? error = null;
            try { _session.Storage.FinishDeferredWaiting(); }
            catch (Exception ex) { error = ex; }
            WriteReadsReply(error);
        }
    }

    /// <summary>Waits here for deferred work (not for deferred reads) and writes its reply.</summary>
    public void FinishWorkBlocking()
    {
        if (_work is null) return;
        var work = TakeWork(out var reply);
        try { work.GetAwaiter().GetResult(); } catch { /* the reply looks at the task */ }
        _session.WriteLaterReply(reply, work);
    }

    private Task TakeWork(out Action<CommandContext, Task> reply)
    {
        var work = _work!;
        reply = _afterWork!;
        _work = null;
        _afterWork = null;
        return work;
    }

    private void WriteReadsReply(Exception? error)
    {
        var reply = _afterReads!;
        _afterReads = null;
        _session.WriteLaterReply(reply, error);
    }
}
