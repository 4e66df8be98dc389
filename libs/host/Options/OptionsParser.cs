// OptionsParser: command line (CommandLineReader) + optional config file -> GarnetServerOptions.
// --help prints CommandLineParser's help text built from the [Option] attributes; --version prints the version.
// A command-line mistake prints one line saying what is wrong, then one line pointing to --help (never the help text).
using CommandLine;

namespace Garnet.Options;

public static class OptionsParser
{
    public const string HelpHint = "Run GarnetServer --help for the list of options.";

    /// <summary>
    /// Parses args. Returns null when the program should exit: help or version printed to output (exitCode 0), or a
    /// command-line mistake written to errors (or output) as one line plus HelpHint (exitCode 1).
    /// A config file that is missing or invalid throws OptionsException.
    /// </summary>
    public static GarnetServerOptions? Parse(string[] args, TextWriter output, out int exitCode, out List<string> ignoredConfig, TextWriter? errors = null)
    {
        exitCode = 0;
        ignoredConfig = [];
        GarnetServerOptions options;
        CommandLineReader.Request request;
        try { options = CommandLineReader.Read(args, out request); }
        catch (OptionsException ex)
        {
            exitCode = 1;
            var w = errors ?? output;
            w.WriteLine(ex.Message);
            w.WriteLine(HelpHint);
            return null;
        }
        if (request == CommandLineReader.Request.Version)
        {
            output.WriteLine(typeof(OptionsParser).Assembly.GetName().Version?.ToString(3));
            return null;
        }
        if (request == CommandLineReader.Request.Help)
        {
            output.WriteLine(HelpText());
            return null;
        }
        if (options.ConfigFile is not null) ignoredConfig = ConfigFileLoader.Load(options.ConfigFile, options);
        return options;
    }

    /// <summary>The --help text: every option with its help text.</summary>
    public static string HelpText()
    {
        using var parser = new Parser(with => with.HelpWriter = null);
        var result = parser.ParseArguments<GarnetServerOptions>(["--help"]);
        return CommandLine.Text.HelpText.AutoBuild(result, h =>
        {
            h.AddDashesToOption = true;
            h.Heading = "GarnetServer (independent implementation of a Redis-protocol cache-store)";
            h.Copyright = "";
            return h;
        }, e => e);
    }
}
