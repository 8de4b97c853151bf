# What nginx answers itself on an API path is a kube Status, as
# kube-apiserver would answer: requests nginx rejects before any location is
# chosen (a bad request line or header, a URI over large_client_header_buffers)
# through the server's error_page and kube_status, and errors inside a
# kube_api location (a body over the limit, an internal error). Other paths
# keep nginx's own pages.
use lib 't/lib';
use Test::Kube;
use Test::More;

repeat_each(2);

my $config = <<'EOF';
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_max_request_body_size 4k;
    }
    location /api/v1/broken {
        return 500;
    }
    location /static/ {
        root html;
    }
EOF

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(config => $config) unless defined $block->config;
    $block->set_value(response_headers_like => 'Content-Type: ^application/json$')
        unless defined $block->response_headers_like || ($block->error_code // '') eq '400'
            && ($block->raw_request // '') =~ m{/static/};
});

# Plain HTTP to the TLS port: what nginx calls 497, a 400 with Go's words.
{
    my $s = start_server(tls => 1);
    my $r = Test::Kube::_raw_request($s->port, 0,
        "GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\n\r\n");
    is($r->{status}, 400, 'plain HTTP to the TLS port: 400');
    is($r->{headers}{'content-type'}, 'application/json', 'plain HTTP to the TLS port: JSON');
    json_subset_ok(eval { decode_json($r->{body}) } || {},
        { kind => 'Status', reason => 'BadRequest', code => 400,
          message => 'Client sent an HTTP request to an HTTPS server.' },
        'plain HTTP to the TLS port: a Status');
    ok($s->stop, 'stopped');
}

run_tests();

__DATA__

=== TEST 1: %00 in an API path is a BadRequest Status
--- raw_request eval
"GET /api/v1/namespaces/a%00b HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 400
--- response_body_json eval
{ kind => 'Status', apiVersion => 'v1', status => 'Failure', reason => 'BadRequest',
  code => 400, message => 'Bad Request: the request could not be parsed' }
--- error_log
client sent invalid request



=== TEST 2: %00 in a path that is not the API's gets nginx's page
--- raw_request eval
"GET /static/a%00b HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 400
--- response_headers_like
Content-Type: ^text/html
--- response_body_like: <html>



=== TEST 3: a request line nginx cannot parse is a BadRequest Status
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1 junk\r\nHost: localhost\r\n\r\n"
--- error_code: 400
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 400 }



=== TEST 4: an invalid header is a BadRequest Status
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nBad Header: y\r\n\r\n"
--- error_code: 400
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 400 }



=== TEST 5: a header over large_client_header_buffers is a BadRequest Status
--- raw_request eval
"GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nX-Big: " . ('b' x 9000) . "\r\n\r\n"
--- error_code: 400
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 400,
  message => 'Bad Request: the request could not be parsed' }



=== TEST 6: a URI over large_client_header_buffers is a 414 Status
--- raw_request eval
"GET /api/v1/namespaces/" . ('a' x 9000) . " HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 414
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 414,
  message => 'Request URI too long: limit is 8192' }



=== TEST 7: an unknown method is kube's MethodNotAllowed
--- raw_request eval
"FOO /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 405
--- response_body_json eval
{ kind => 'Status', reason => 'MethodNotAllowed', code => 405, details => {},
  message => 'the server does not allow this method on the requested resource' }



=== TEST 8: a Content-Length over the limit is kube's RequestEntityTooLarge
--- raw_request eval
"POST /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 9999999\r\n\r\n"
--- error_code: 413
--- response_body_json eval
{ kind => 'Status', reason => 'RequestEntityTooLarge', code => 413,
  message => 'Request entity too large: limit is 4096' }



=== TEST 9: a chunked body over the limit is refused with the location's limit
--- raw_request eval
"POST /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1800\r\n" . ('a' x 0x1800) . "\r\n0\r\n\r\n"
--- error_code: 413
--- response_body_json eval
{ kind => 'Status', reason => 'RequestEntityTooLarge', code => 413,
  message => 'Request entity too large: limit is 4096' }
--- error_log
is over kube_max_request_body_size



=== TEST 10: a Transfer-Encoding nginx does not know is a 501 Status
--- raw_request eval
"POST /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n"
--- error_code: 501
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 501,
  message => 'Unsupported transfer encoding' }



=== TEST 11: a protocol version nginx does not speak is a 505 Status
--- raw_request eval
"GET /api/v1/namespaces HTTP/2.0\r\nHost: localhost\r\n\r\n"
--- error_code: 505
--- response_body_json eval
{ kind => 'Status', reason => 'BadRequest', code => 505,
  message => 'HTTP Version Not Supported' }



=== TEST 12: an internal error of nginx on an API path is kube's InternalError
--- raw_request eval
"GET /api/v1/broken HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 500
--- response_body_json eval
{ kind => 'Status', reason => 'InternalError', code => 500 }



=== TEST 13: without kube_status, the filter still answers a kube_api location's 413 as a Status
--- config
    # no error_page to kube_status here: the header filter answers
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_max_request_body_size 4k;
    }
--- raw_request eval
"POST /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1800\r\n" . ('a' x 0x1800) . "\r\n0\r\n\r\n"
--- error_code: 413
--- response_body_json eval
{ kind => 'Status', reason => 'RequestEntityTooLarge', code => 413,
  message => 'Request entity too large: limit is 4096' }



=== TEST 14: the error page location is internal: asked for directly, it is not found
--- raw_request eval
"GET /.kube-status HTTP/1.1\r\nHost: localhost\r\n\r\n"
--- error_code: 404
--- response_headers_like
Content-Type: ^text/html



=== TEST 15: a request that succeeds is untouched by the error pages
--- request
GET /api/v1/namespaces/default
--- response_body_json eval
{ kind => 'Namespace', metadata => { name => 'default' } }

