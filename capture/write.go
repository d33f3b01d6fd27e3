package capture

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// WriteJSON decodes the capture r (named name in messages) as kind and writes one JSON object per record
// (none with summaryOnly), then the summary line, through one buffer. When reading fails the records
// decoded so far are still written, and no summary line is: a consumer can tell a complete decode from a
// partial one.
func WriteJSON(w io.Writer, r io.Reader, name string, kind Kind, summaryOnly bool) error {
	out := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sum, err := Decode(r, kind, func(rec Record) error {
		if summaryOnly {
			return nil
		}
		return enc.Encode(rec)
	})
	if err != nil {
		_ = out.Flush() // the records decoded so far are still worth seeing
		return fmt.Errorf("decode %s: %w", name, err)
	}
	if err := enc.Encode(sum); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

// OpenFile opens a capture file, turning the common mistakes into messages that say what to do.
func OpenFile(name string) (*os.File, error) {
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("capture file %s does not exist; check the path, or pass - to read stdin", name)
	case err != nil:
		return nil, fmt.Errorf("cannot read capture file: %w", err)
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory; pass a capture file inside it", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open capture file: %w", err)
	}
	return f, nil
}
