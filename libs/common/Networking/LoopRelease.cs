// LoopRelease: lets code that is about to wait long on a network loop's thread (a script that runs on, a wait for a
// key-lock stripe) hand the loop to another thread first, so the loop's other connections are served meanwhile; as
// releasing the GIL around a blocking call. Off a loop thread (the .NET socket engine, AOF replay, tests) it does nothing.
// Invariants: Release and Reacquire run on the same thread, in pairs, and nothing the caller holds while it waits is
// needed by the loop to give itself back (Reacquire waits for the holder's round to end; a holder that blocks releases).
namespace Garnet.common.Networking;

public static class LoopRelease
{
    internal interface ILoop
    {
        /// <summary>Hands the loop over when the calling thread holds it; false otherwise.</summary>
        bool Release();
        /// <summary>Takes it back; detached: what Current was at Release.</summary>
        void Reacquire(object? detached);
        object? Current { get; }
    }

    // The loop the calling thread holds now: set by the loop while its thread owns it, cleared by Release, set again by
    // Reacquire.
    [ThreadStatic] private static ILoop? t_loop;

    internal static ILoop? Holder
    {
        get => t_loop;
        set => t_loop = value;
    }

    /// <summary>Whether the calling thread runs a network loop now (releasing would help others).</summary>
    public static bool OnLoop => t_loop is not null;

    /// <summary>Hands the calling thread's loop (if any) to another thread. Pass the result to Reacquire once the wait
    /// is over (a default Released does nothing).</summary>
    public static Released Release()
    {
        var loop = t_loop;
        if (loop is null) return default;
        var current = loop.Current;
        if (!loop.Release()) return default;
        t_loop = null;
        return new Released(loop, current);
    }

    public readonly struct Released
    {
        private readonly ILoop? _loop;
        private readonly object? _detached;

        internal Released(ILoop loop, object? detached)
        {
            _loop = loop;
            _detached = detached;
        }

        public bool IsReleased => _loop is not null;

        /// <summary>Takes the loop back (same thread as Release); nothing if none was released.</summary>
        public void Reacquire()
        {
            if (_loop is null) return;
            _loop.Reacquire(_detached); // sets the holder again
        }
    }

    /// <summary>A SpinWait that, once the wait has gone on for ReleaseAfterSpins spins (past its busy spinning, into
    /// yields and sleeps), releases the loop; Done takes it back.</summary>
    public struct Spinner
    {
        public const int ReleaseAfterSpins = 30;
        private SpinWait _spin;
        private Released _released;

        public void SpinOnce()
        {
            _spin.SpinOnce();
            if (_spin.Count == ReleaseAfterSpins && !_released.IsReleased) _released = Release();
        }

        public void Done()
        {
            _released.Reacquire();
            _released = default;
        }
    }
}
