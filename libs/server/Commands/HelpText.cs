// HELP replies for container commands, in Redis's shape: a header line, the lines, then HELP itself.
using Garnet.server.Session;

namespace Garnet.server.Commands;

internal static class HelpText
{
    public static void Write(CommandContext s, string command, string[] lines)
    {
        var w = s.Writer;
        w.WriteArrayHeader(lines.Length + 3);
        w.WriteSimpleString($"{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        foreach (var l in lines) w.WriteSimpleString(l);
        w.WriteSimpleString("HELP");
        w.WriteSimpleString("    Print this help.");
    }
}
