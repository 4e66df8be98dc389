// StartupFailure: the one line the executable prints when the server cannot start (the stack trace only at --loglevel debug).
// Invariant: the line names the option, its value and the reason. The exceptions the server throws at start already carry
// such a line (OptionsException, DataDirectoryInUseException, SocketException from the listener, PersistenceException);
// other I/O failures are about --dir, and are prefixed with it.
using System.Net.Sockets;
using Garnet.Options;
using Garnet.server;
using Garnet.server.Persistence;

namespace Garnet;

static class StartupFailure
{
    public static string OneLine(Exception ex, ServerSettings settings)
    {
        ex = Unwrap(ex);
        string message = ex.Message.ReplaceLineEndings(" ").Trim();
        return ex switch
        {
            OptionsException or DataDirectoryInUseException or SocketException or PersistenceException => message,
            IOException or UnauthorizedAccessException => $"Could not start with --dir '{Path.GetFullPath(settings.Dir)}': {message}",
            _ => $"Could not start: {ex.GetType().Name}: {message}",
        };
    }

    /// <summary>The exception that says what went wrong, wherever the host or a task wrapped it: the first one with its own
    /// one-line message, else the first I/O failure, else the exception itself (through AggregateExceptions of one).</summary>
    private static Exception Unwrap(Exception ex)
    {
        var all = Flatten(ex).ToList();
        return all.FirstOrDefault(e => e is OptionsException or DataDirectoryInUseException or SocketException or PersistenceException)
            ?? all.FirstOrDefault(e => e is IOException or UnauthorizedAccessException)
            ?? all.First(e => e is not AggregateException || e == all[^1]);
    }

    private static IEnumerable<Exception> Flatten(Exception? ex)
    {
        for (; ex is not null; ex = ex.InnerException)
        {
            yield return ex;
            if (ex is AggregateException ae)
            {
                foreach (var inner in ae.InnerExceptions.SelectMany(Flatten)) yield return inner;
                yield break;
            }
        }
    }
}
