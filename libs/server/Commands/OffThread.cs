// OffThread: a command whose work may wait for the disk (an iteration over the log: KEYS, SCAN, RANDOMKEY) runs it as a
// task and replies when it completes, so the connection's thread serves other connections meanwhile (ReplyWhenDone).
// Work that never waited (everything in memory) is answered at once. Inside EXEC, or without a connection loop, the
// caller waits for the work instead.
using Garnet.server.Session;

namespace Garnet.server.Commands;

internal static class OffThread
{
    public static void Reply<T>(CommandContext s, Task<T> work, Action<CommandContext, T> reply)
    {
        if (work.IsCompleted || !s.CanFinishLater) reply(s, work.GetAwaiter().GetResult());
        else s.ReplyWhenDone(work, (session, done) => reply(session, ((Task<T>)done).GetAwaiter().GetResult()));
    }
}
