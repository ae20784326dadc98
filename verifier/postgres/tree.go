package postgres

import (
	"bytes"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The round-trip proof of normalize compares two parse trees, source
// positions aside. Decoding both into Go structs and comparing them by
// reflection costs about as much as a parse, so the comparison runs on the
// parser's own protobuf encodings instead, in lockstep, guided by the
// message descriptors: position fields are skipped, nested messages are
// compared recursively (their positions differ too) and every other field
// must be byte-identical. Both encodings come from the same serializer,
// which writes fields in number order and omits default values, so equal
// trees give equal field sequences.

// msgInfo says how to compare the fields of one message type, indexed by
// field number; a number past the end or without an entry is a field the
// descriptor does not know, compared byte for byte.
type msgInfo struct {
	fields []fieldInfo
}

// fieldInfo says how to compare one field.
type fieldInfo struct {
	position bool     // a source position: skipped
	msg      *msgInfo // set for message fields
}

func (m *msgInfo) field(num protowire.Number) fieldInfo {
	if num >= 0 && int(num) < len(m.fields) {
		return m.fields[num]
	}
	return fieldInfo{}
}

// parseResultInfo is built once, on first use, for every message type
// reachable from ParseResult (a few hundred), so that the comparison
// itself does no lookups by name.
var parseResultInfo = sync.OnceValue(func() *msgInfo {
	return buildInfo((&pg_query.ParseResult{}).ProtoReflect().Descriptor(), map[protoreflect.FullName]*msgInfo{})
})

func buildInfo(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]*msgInfo) *msgInfo {
	if m, ok := seen[md.FullName()]; ok {
		return m
	}
	m := &msgInfo{}
	seen[md.FullName()] = m // before the fields: message types nest recursively
	fds := md.Fields()
	maxNum := protowire.Number(0)
	for i := 0; i < fds.Len(); i++ {
		maxNum = max(maxNum, fds.Get(i).Number())
	}
	m.fields = make([]fieldInfo, maxNum+1)
	for i := 0; i < fds.Len(); i++ {
		fd := fds.Get(i)
		fi := fieldInfo{position: isPosition(fd)}
		if fd.Kind() == protoreflect.MessageKind && !fd.IsMap() {
			fi.msg = buildInfo(fd.Message(), seen)
		}
		m.fields[fd.Number()] = fi
	}
	return m
}

// isPosition reports whether a field is a source position (location, or a
// RawStmt's statement offset and length), which differs between the input
// and the printed text without changing meaning.
func isPosition(fd protoreflect.FieldDescriptor) bool {
	switch fd.Name() {
	case "location", "stmt_location", "stmt_len":
		return fd.Kind() == protoreflect.Int32Kind
	}
	return false
}

// skipPositions drops the position fields at the start of b; nil for
// malformed input.
func skipPositions(b []byte, info *msgInfo) []byte {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || !info.field(num).position {
			return b
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		b = b[n+m:]
	}
	return b
}

// sameTree reports whether encodings a and b of a message described by
// info hold the same tree, source positions aside. Malformed input is never
// the same.
func sameTree(a, b []byte, info *msgInfo) bool {
	for {
		a, b = skipPositions(a, info), skipPositions(b, info)
		if a == nil || b == nil {
			return false
		}
		if len(a) == 0 || len(b) == 0 {
			return len(a) == len(b)
		}
		numA, typA, nA := protowire.ConsumeTag(a)
		numB, typB, nB := protowire.ConsumeTag(b)
		if nA < 0 || nB < 0 || numA != numB || typA != typB {
			return false
		}
		a, b = a[nA:], b[nB:]
		if fi := info.field(numA); fi.msg != nil && typA == protowire.BytesType {
			va, ma := protowire.ConsumeBytes(a)
			vb, mb := protowire.ConsumeBytes(b)
			if ma < 0 || mb < 0 || !sameTree(va, vb, fi.msg) {
				return false
			}
			a, b = a[ma:], b[mb:]
			continue
		}
		ma := protowire.ConsumeFieldValue(numA, typA, a)
		mb := protowire.ConsumeFieldValue(numB, typB, b)
		if ma < 0 || mb < 0 || !bytes.Equal(a[:ma], b[:mb]) {
			return false
		}
		a, b = a[ma:], b[mb:]
	}
}
