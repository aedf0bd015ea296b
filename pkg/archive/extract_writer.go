package archive

import (
	"errors"
	"os"
)

// Extraction runs on two goroutines: the caller's decompresses and parses
// the stream and makes every decision (names, duplicates, limits), and a
// writer performs the file-system side (mkdir, create, write, close) in the
// order it was asked to. Decompression and the kernel's file creation and
// page-cache copies then overlap on two cores. The writer only ever sees
// names the reader has already validated and recorded.

const (
	chunkSize = 256 << 10 // bytes per write(2)
	chunks    = 4         // chunks in flight: bounds the memory of a pipeline
	maxDirFDs = 64        // directories kept open for creating entries in them
	smallFile = 32 << 10  // files smaller than this get a buffer of their own
)

// errWriterStopped tells the reader that the writer failed; the writer's
// error is the one to report.
var errWriterStopped = errors.New("writer stopped")

type opKind int

const (
	opMkdir opKind = iota
	opCreate
	opData
	opClose
)

type op struct {
	kind   opKind
	name   string // slash path, for opMkdir and opCreate
	mode   os.FileMode
	data   []byte // for opData
	pooled bool   // data is a pool chunk, returned to the pool once written
}

// writer applies ops to the tree under root.
type writer struct {
	root    *os.Root
	ops     chan op
	free    chan []byte
	made    int           // chunks allocated (reader side)
	stopped chan struct{} // closed when the writer fails
	done    chan struct{} // closed when the writer has returned
	err     error         // the writer's first error, read after done

	// writer goroutine state
	dirs     map[string]*os.Root  // open directories by slash path, "." is root
	chmod    map[os.FileMode]bool // per mode, once checked: does the umask strip it?
	file     *os.File
	fileName string
}

func newWriter(root *os.Root) *writer {
	w := &writer{
		root:    root,
		ops:     make(chan op, 2*chunks),
		free:    make(chan []byte, chunks),
		stopped: make(chan struct{}),
		done:    make(chan struct{}),
		dirs:    map[string]*os.Root{".": root},
		chmod:   map[os.FileMode]bool{},
	}
	go w.loop()
	return w
}

// send queues o, or reports that the writer has stopped (checked first, so
// that the reader stops at its next step once the writer has failed).
func (w *writer) send(o op) error {
	select {
	case <-w.stopped:
		return errWriterStopped
	default:
	}
	select {
	case w.ops <- o:
		return nil
	case <-w.stopped:
		return errWriterStopped
	}
}

// buffer returns an empty buffer for at most n bytes of content: a buffer
// of exactly n bytes, not pooled, when n is less than a chunk (most files
// of a package are small), else a pool chunk, waiting for one to be written
// when all are in flight.
func (w *writer) buffer(n int64) (buf []byte, pooled bool, err error) {
	if n < chunkSize {
		return make([]byte, n), false, nil
	}
	buf, err = w.chunk()
	return buf, err == nil, err
}

// chunk returns an empty pool chunk.
func (w *writer) chunk() ([]byte, error) {
	select {
	case <-w.stopped:
		return nil, errWriterStopped
	case b := <-w.free:
		return b, nil
	default:
	}
	if w.made < chunks {
		w.made++
		return make([]byte, chunkSize), nil
	}
	select {
	case b := <-w.free:
		return b, nil
	case <-w.stopped:
		return nil, errWriterStopped
	}
}

// recycle returns an unused chunk to the pool (reader side).
func (w *writer) recycle(b []byte) { w.free <- b[:cap(b)] }

// finish waits for every queued op to be applied and returns the writer's
// error, if any. The reader calls it exactly once.
func (w *writer) finish() error {
	close(w.ops)
	<-w.done
	return w.err
}

func (w *writer) loop() {
	defer close(w.done)
	defer w.closeAll()
	for o := range w.ops {
		if w.err != nil {
			continue // drained by finish
		}
		err := w.apply(o)
		if o.pooled {
			w.free <- o.data[:cap(o.data)]
		}
		if err != nil {
			w.err = err
			close(w.stopped)
		}
	}
}

func (w *writer) apply(o op) error {
	switch o.kind {
	case opMkdir:
		return w.mkdir(o.name)
	case opCreate:
		return w.create(o.name, o.mode)
	case opData:
		if _, err := w.file.Write(o.data); err != nil {
			return pathErr(w.fileName, err)
		}
		return nil
	default: // opClose
		f := w.file
		w.file = nil
		if err := f.Close(); err != nil {
			return pathErr(w.fileName, err)
		}
		return nil
	}
}

func (w *writer) closeAll() {
	if w.file != nil {
		w.file.Close()
	}
	for name, d := range w.dirs {
		if name != "." {
			d.Close()
		}
	}
}
